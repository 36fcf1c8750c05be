"""An acronym alias and the alias it abbreviates are one concept ("DPO" and
"direct preference optimization"): a keyword typed as either is one
subscription and finds the papers that say the other. The shipped vocabulary
must keep every such pair in a [[concept]] table; this file checks it does."""

from __future__ import annotations

import re

import pytest

from paperbot.core.topics import (
    Vocabulary,
    build_corpus,
    match_topic,
    resolve,
    term_key,
)
from tests.support.topics import shipped_vocabulary

_ACRONYM = re.compile(r"[A-Za-z]{2,6}")
_FUNCTION_WORDS = frozenset({"of", "from", "to", "for", "and", "the", "in", "on", "with"})


def _is_acronym(term: str) -> bool:
    return bool(_ACRONYM.fullmatch(term)) and sum(c.isupper() for c in term) >= 2


def abbreviates(short: str, long: str) -> bool:
    """Whether `short` is made of the initials of `long`'s words (split at
    spaces and hyphens), with or without its function words: CoT, chain of
    thought; RLHF, reinforcement learning from human feedback."""
    words = [w for w in re.split(r"[\s-]+", long.lower()) if w]
    if len(words) < 2:
        return False
    every = "".join(w[0] for w in words)
    content = "".join(w[0] for w in words if w not in _FUNCTION_WORDS)
    return short.lower() in (every, content)


@pytest.mark.parametrize(
    ("short", "long", "expected"),
    [
        ("DPO", "direct preference optimization", True),
        ("CoT", "chain of thought", True),
        ("CoT", "chain-of-thought", True),
        ("RLHF", "reinforcement learning from human feedback", True),
        ("OOD", "out-of-distribution", True),
        ("TTS", "text-to-speech", True),
        ("MoE", "mixture of experts", True),
        ("RL", "reinforcement learning", True),
        ("DPO", "data pruning", False),
        ("SSM", "state space", False),  # too few words
        ("BPE", "tokenizer", False),  # one word
    ],
)
def test_abbreviates(short: str, long: str, expected: bool) -> None:
    assert abbreviates(short, long) is expected


def _pairs(vocabulary: Vocabulary) -> list[tuple[str, str, str]]:
    """(topic id, acronym, expansion) for each strong acronym term of a
    topic that abbreviates another strong term of the same topic."""
    pairs = []
    for topic in vocabulary.topics:
        terms = (topic.name, *topic.aliases)
        for short in filter(_is_acronym, terms):
            pairs += [(topic.key, short, long) for long in terms if abbreviates(short, long)]
    return pairs


def test_every_acronym_alias_shares_a_concept_with_its_expansion() -> None:
    vocabulary = shipped_vocabulary()
    pairs = _pairs(vocabulary)
    assert len(pairs) >= 8  # DPO, SFT, SSM, TTS, OOD, BPE, ICL, CoT, MoE ...
    concepts = [set(keys) for keys in vocabulary.concept_keys]
    unpaired = [
        (topic, short, long)
        for topic, short, long in pairs
        if not any({term_key(short), term_key(long)} <= keys for keys in concepts)
    ]
    assert unpaired == []


def test_an_acronym_keyword_finds_the_paper_that_spells_it_out() -> None:
    vocabulary = shipped_vocabulary()
    acronym, spelled = (
        resolve("DPO", vocabulary),
        resolve("direct preference optimization", vocabulary),
    )
    chinese = resolve("直接偏好优化", vocabulary)
    assert acronym.is_keyword
    assert acronym.key == spelled.key == chinese.key  # one subscription
    papers = [
        (1, "Direct Preference Optimization: your model is a reward model", "用偏好数据训练。"),
        (2, "Scaling laws for weight decay", "幂律。"),
    ]
    corpus = build_corpus(papers)
    assert 1 in match_topic(acronym, corpus, vocabulary=vocabulary).ids.tolist()
