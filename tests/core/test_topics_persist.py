"""The topic corpus and the vocabulary topics' matches as named arrays and back."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from paperbot.bench.synthetic import synthetic_papers
from paperbot.core.topics import (
    TopicMatches,
    Vocabulary,
    build_corpus,
    corpus_arrays,
    corpus_from_arrays,
    match_topic,
    matches_from_arrays,
    parse_vocabulary,
    vocabulary_fingerprint,
)
from tests.support.topics import assert_same_corpus, assert_same_matches

VOCABULARY = Path(__file__).parents[2] / "src" / "paperbot" / "data" / "topics.toml"


@cache
def _vocabulary() -> Vocabulary:
    return parse_vocabulary(VOCABULARY.read_text(encoding="utf-8"))


@pytest.mark.parametrize("count", [0, 1, 300])
def test_a_corpus_and_its_matches_come_back_equal(count: int) -> None:
    corpus = build_corpus((i + 1, t, s) for i, (t, s) in enumerate(synthetic_papers(count)))
    vocabulary = _vocabulary()
    matches = {
        t.key: match_topic(t, corpus, vocabulary.term_words(), vocabulary)
        for t in vocabulary.topics
    }
    fingerprint = vocabulary_fingerprint(vocabulary)
    arrays = dict(corpus_arrays(corpus, matches, fingerprint))
    assert_same_corpus(corpus_from_arrays(arrays), corpus)
    back = matches_from_arrays(arrays, fingerprint)
    assert back.keys() == matches.keys()
    for key, found in matches.items():
        assert_same_matches(back[key], found)


def test_matches_of_another_vocabulary_are_not_used() -> None:
    corpus = build_corpus([(1, "Scaling laws for everything", "缩放定律")])
    arrays = dict(corpus_arrays(corpus, {"scaling-laws": TopicMatches.empty()}, "a" * 64))
    assert matches_from_arrays(arrays, "a" * 64).keys() == {"scaling-laws"}
    assert matches_from_arrays(arrays, vocabulary_fingerprint(_vocabulary())) == {}


@pytest.mark.parametrize(
    ("damage", "error"),
    [
        ("title_docs", KeyError),
        ("summary_word_indptr", ValueError),
        ("ids", ValueError),
    ],
)
def test_a_damaged_set_is_refused(damage: str, error: type[Exception]) -> None:
    corpus = build_corpus((i + 1, t, s) for i, (t, s) in enumerate(synthetic_papers(20)))
    arrays = dict(corpus_arrays(corpus, {}, "f" * 64))
    if error is KeyError:
        del arrays[damage]
    else:
        arrays[damage] = arrays[damage][:-1]
    with pytest.raises(error):
        corpus_from_arrays(arrays)


def test_texts_holding_nul_are_refused() -> None:
    corpus = build_corpus([(1, "a", "b")])
    broken = corpus.title.__class__(("bad\x00doc",), {}, {}, ())
    with pytest.raises(ValueError, match="NUL"):
        dict(corpus_arrays(corpus.__class__(corpus.ids, broken, corpus.summary), {}, "f" * 64))
