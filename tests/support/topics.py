"""Equality of topic corpora and matches, array by array (numpy arrays do
not compare with `==`)."""

from __future__ import annotations

import numpy as np

from paperbot.core.topics import TopicCorpus, TopicMatches


def assert_same_corpus(ours: TopicCorpus, theirs: TopicCorpus) -> None:
    assert np.array_equal(ours.ids, theirs.ids)
    for name in ("title", "summary"):
        a, b = ours.field(name), theirs.field(name)
        assert a.docs == b.docs
        assert a.words == b.words
        for mine, other in ((a.word_postings, b.word_postings), (a.char_postings, b.char_postings)):
            assert mine.keys() == other.keys()
            for key, positions in mine.items():
                assert np.array_equal(positions, other[key]), key


def assert_same_matches(ours: TopicMatches, theirs: TopicMatches) -> None:
    assert np.array_equal(ours.ids, theirs.ids)
    assert np.array_equal(ours.scores, theirs.scores)
    assert np.array_equal(ours.near_ids, theirs.near_ids)
    assert np.array_equal(ours.near_scores, theirs.near_scores)
