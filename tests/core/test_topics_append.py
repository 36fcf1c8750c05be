"""A topic corpus extended by new papers equals a full build, and matching
over it equals matching over a full build (how the old matches follow the new
papers, against their frozen feedback profiles: test_topics_frozen_profile)."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from paperbot.bench.synthetic import synthetic_papers
from paperbot.core.topics import (
    NEAR_LIMIT,
    append_corpus,
    build_corpus,
    match_topic,
)
from paperbot.core.topics._append import _merge_postings
from paperbot.core.topics._corpus import Postings
from tests.support.topics import assert_same_corpus, assert_same_matches, shipped_vocabulary

COUNT = 1200


@cache
def _rows() -> tuple[tuple[int, str, str], ...]:
    # Ids with gaps, as a database's are after removals.
    return tuple((3 * i + 1, t, s) for i, (t, s) in enumerate(synthetic_papers(COUNT)))


@pytest.mark.parametrize("split", [0, 1, 600, COUNT - 12, COUNT])
def test_an_appended_corpus_equals_a_full_build(split: int) -> None:
    rows = _rows()
    appended = append_corpus(build_corpus(rows[:split]), rows[split:])
    assert appended is not None
    corpus, part = appended
    assert_same_corpus(corpus, build_corpus(rows))
    assert np.array_equal(part.ids, [r[0] for r in rows[split:]])


@pytest.mark.parametrize("split", [0, 700, COUNT - 12])
def test_matching_an_appended_corpus_equals_matching_a_full_build(split: int) -> None:
    rows = _rows()
    vocabulary = shipped_vocabulary()
    protected = vocabulary.term_words()
    appended = append_corpus(build_corpus(rows[:split]), rows[split:])
    assert appended is not None
    full = build_corpus(rows)
    matched = 0
    for topic in vocabulary.topics:
        expected = match_topic(topic, full, protected, vocabulary)
        assert_same_matches(match_topic(topic, appended[0], protected, vocabulary), expected)
        matched += len(expected) > 0
    assert matched > len(vocabulary.topics) // 2  # the comparison is not of empties


@pytest.mark.parametrize(
    ("old_ids", "new_ids"),
    [([5, 9], [9]), ([5, 9], [7]), ([5, 9], [10, 2])],
)
def test_papers_not_after_the_corpus_cannot_be_appended(
    old_ids: list[int], new_ids: list[int]
) -> None:
    old = build_corpus((i, f"title {i}", "summary") for i in old_ids)
    assert append_corpus(old, [(i, f"title {i}", "summary") for i in new_ids]) is None


def test_near_matches_break_ties_by_paper_id() -> None:
    # 40 papers with the same passing mention: the 24 kept near matches are
    # the lowest ids, whatever the order a partition meets them in.
    vocabulary = shipped_vocabulary()
    topic = vocabulary.topics[0]
    mention = f"这里顺便提到 {topic.name}，但不是本文主题。" + "其余内容讲别的事情。" * 10
    rows = [
        (i, f"unrelated paper {i}", "开头讲别的方法。" * 20 + mention) for i in range(40, 0, -1)
    ]
    found = match_topic(topic, build_corpus(sorted(rows)), vocabulary.term_words(), vocabulary)
    assert len(found) == 0
    assert found.near_ids.tolist() == list(range(1, NEAR_LIMIT + 1))


def as_postings(lists: dict[str, list[int]]) -> Postings:
    indptr = np.cumsum([0, *(len(v) for v in lists.values())])
    docs = np.asarray([p for v in lists.values() for p in v], dtype=np.int32)
    return Postings(list(lists), indptr, docs)


@pytest.mark.parametrize(
    ("old", "part"),
    [
        ({}, {}),
        ({"a": [0, 2]}, {}),
        ({}, {"a": [0], "b": [1]}),
        ({"a": [0], "b": [1, 2]}, {"b": [0], "a": [1]}),
        # New keys before the last old key: both go in at the end.
        ({"a": [0], "b": [1, 2]}, {"c": [0], "b": [0, 1], "d": [1]}),
        ({"a": [0, 1, 2], "b": [2], "c": [0]}, {"c": [1], "a": [0, 1]}),
    ],
)
def test_merged_postings_equal_a_plain_merge(
    old: dict[str, list[int]], part: dict[str, list[int]]
) -> None:
    offset = 3
    expected = {key: list(positions) for key, positions in old.items()}
    for key, positions in part.items():
        expected.setdefault(key, []).extend(p + offset for p in positions)
    merged = _merge_postings(as_postings(old), as_postings(part), np.int32(offset))
    assert {key: v.tolist() for key, v in merged.items()} == expected
    assert list(merged) == list(expected)
    assert merged.docs.dtype == np.int32
