"""Equality of topic corpora and matches, array by array (numpy arrays do
not compare with `==`); the shipped vocabulary, parsed once."""

from __future__ import annotations

from functools import cache

import numpy as np

from paperbot.config import BUNDLED_TOPICS
from paperbot.core.topics import (
    CLOSE_SCALE,
    TopicCorpus,
    TopicMatches,
    Vocabulary,
    parse_vocabulary,
)


@cache
def shipped_vocabulary() -> Vocabulary:
    """The vocabulary the bot ships (`data/topics.toml`), parsed once."""
    return parse_vocabulary(BUNDLED_TOPICS.read_text(encoding="utf-8"))


def assert_same_corpus(
    ours: TopicCorpus, theirs: TopicCorpus, *, other_process: bool = False
) -> None:
    """`other_process`: one was built in another process, whose string
    hashes (so the order distinct words are first met in) differ."""
    assert np.array_equal(ours.ids, theirs.ids)
    for name in ("title", "summary"):
        a, b = ours.field(name), theirs.field(name)
        assert a.docs == b.docs
        assert sorted(a.words) == sorted(b.words) if other_process else a.words == b.words
        for mine, other in ((a.word_postings, b.word_postings), (a.char_postings, b.char_postings)):
            assert mine.keys() == other.keys()
            for key, positions in mine.items():
                assert np.array_equal(positions, other[key]), key


def assert_same_matches(ours: TopicMatches, theirs: TopicMatches) -> None:
    assert np.array_equal(ours.ids, theirs.ids)
    assert np.array_equal(ours.scores, theirs.scores)
    assert np.array_equal(ours.near_ids, theirs.near_ids)
    assert np.array_equal(ours.near_scores, theirs.near_scores)
    assert ours.profile == theirs.profile


def assert_extended_matches(ours: TopicMatches, theirs: TopicMatches) -> None:
    """`ours` (matches extended by appended papers) against `theirs` (the
    whole corpus matched with the same profile): the same matches and near
    papers with word evidence; the near places left (papers without word
    evidence, below `CLOSE_SCALE`) are an estimate in both (read by an upper
    bound), and the extension, reading each part apart, finds papers at
    least as close, place by place."""
    assert np.array_equal(ours.ids, theirs.ids)
    assert np.array_equal(ours.scores, theirs.scores)
    words, their_words = ours.near_scores > CLOSE_SCALE, theirs.near_scores > CLOSE_SCALE
    assert np.array_equal(ours.near_ids[words], theirs.near_ids[their_words])
    assert np.array_equal(ours.near_scores[words], theirs.near_scores[their_words])
    fill, their_fill = ours.near_scores[~words], theirs.near_scores[~their_words]
    assert len(fill) >= len(their_fill)
    assert np.all(fill[: len(their_fill)] >= their_fill)
