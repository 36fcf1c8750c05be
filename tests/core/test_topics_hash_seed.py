"""The stored form of a corpus (the topic corpus with its matches, and the
search index) is the same bytes whatever Python's hash seed: a set's or a
dict's order must not reach a stored array."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from paperbot.core.topics import build_corpus

# Run in a child Python started with a given PYTHONHASHSEED: each stored
# array's digest (name, dtype, shape and bytes), by name.
_CHILD = """
import hashlib, json
from pathlib import Path
import paperbot
from paperbot.bench.synthetic import synthetic_papers
from paperbot.core.search import build_index_columns, to_arrays
from paperbot.core.topics import (
    build_corpus, corpus_arrays, match_topic, parse_vocabulary, vocabulary_fingerprint,
)

papers = synthetic_papers(300)
vocabulary = parse_vocabulary(
    (Path(paperbot.__file__).parent / "data" / "topics.toml").read_text(encoding="utf-8")
)
corpus = build_corpus((i, t, s) for i, (t, s) in enumerate(papers, 1))
matches = {
    t.key: match_topic(t, corpus, vocabulary.term_words(), vocabulary)
    for t in vocabulary.topics
}
topics = corpus_arrays(corpus, matches, vocabulary_fingerprint(vocabulary))
index = to_arrays(
    build_index_columns(
        ids=list(range(1, len(papers) + 1)),
        titles=[t for t, _ in papers],
        venues=["arXiv"] * len(papers),
        years=[2024] * len(papers),
        summaries=[s for _, s in papers],
    )
)
digests = {}
for scope, arrays in (("topics", topics), ("index", index.items())):
    for name, array in arrays:
        head = f"{array.dtype.str} {array.shape}".encode()
        digests[f"{scope}:{name}"] = hashlib.sha256(head + array.tobytes()).hexdigest()
print(json.dumps(digests))
"""


def _stored_digests(seed: int) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True
    )
    digests: dict[str, str] = json.loads(done.stdout)
    return digests


def test_the_stored_form_is_the_same_bytes_under_any_hash_seed() -> None:
    first, second = _stored_digests(1), _stored_digests(2)
    assert "topics:title_word_keys" in first
    assert "index:ids" in first
    assert [name for name in first if first[name] != second.get(name)] == []
    assert first.keys() == second.keys()


@pytest.mark.parametrize(
    ("titles", "words"),
    [
        # Words first met in one paper come sorted; papers keep their order.
        (["zeta alpha mid"], ("alpha", "mid", "zeta")),
        (["zeta", "beta alpha zeta"], ("zeta", "alpha", "beta")),
        (["", "b a", "", "d c a"], ("a", "b", "c", "d")),
        (["", ""], ()),
    ],
)
def test_words_come_in_order_of_first_paper_then_sorted(
    titles: list[str], words: tuple[str, ...]
) -> None:
    corpus = build_corpus((i, title, "") for i, title in enumerate(titles, 1))
    assert corpus.title.words == words
    assert tuple(corpus.title.word_postings) == words
    for word in words:
        held = [p for p, title in enumerate(titles) if word in title.split()]
        assert corpus.title.word_postings[word].tolist() == held
