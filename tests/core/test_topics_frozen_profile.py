"""Appended papers decided against a topic's frozen feedback profile (issue
14): the extended matches equal matching the whole extended corpus with that
profile; against matching it afresh they differ only where the new papers
changed the profile, and then only for borderline papers; once the papers
added since pass `REFRESH_SHARE` the topic is matched afresh (equal to a
full build); the corpus-frequency sample is stable under appends."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from paperbot.bench.synthetic import synthetic_papers
from paperbot.core.topics import (
    CLOSE_SCALE,
    NEAR_LIMIT,
    REFRESH_SHARE,
    STRONG_SCORE,
    TopicMatches,
    append_corpus,
    background_sample,
    build_corpus,
    extend_matches,
    match_topic,
    merge_matches,
)
from tests.support.topics import assert_extended_matches, assert_same_matches, shipped_vocabulary

COUNT = 1200
Rows = tuple[tuple[int, str, str], ...]


@cache
def _rows() -> Rows:
    return tuple((3 * i + 1, t, s) for i, (t, s) in enumerate(synthetic_papers(COUNT)))


def _extended(split: int, rows: Rows) -> dict[str, tuple[TopicMatches, TopicMatches]]:
    """Per topic: (matches over rows[:split] extended by the rest, and the
    whole corpus matched afresh)."""
    vocabulary = shipped_vocabulary()
    protected = vocabulary.term_words()
    base = build_corpus(rows[:split])
    appended = append_corpus(base, rows[split:])
    assert appended is not None
    corpus, part = appended
    found = {}
    for topic in vocabulary.topics:
        old = match_topic(topic, base, protected, vocabulary)
        ours = extend_matches(old, topic, corpus, part, protected, vocabulary)
        found[topic.key] = (ours, match_topic(topic, corpus, protected, vocabulary))
    return found


@pytest.mark.parametrize("added", [1, 12, 60])
def test_extended_matches_equal_the_whole_corpus_matched_with_the_frozen_profile(
    added: int,
) -> None:
    rows = _rows()
    vocabulary = shipped_vocabulary()
    full = build_corpus(rows)
    extended = _extended(COUNT - added, rows)
    decided = 0
    for topic in vocabulary.topics:
        ours, _ = extended[topic.key]
        assert ours.profile.since == added
        assert ours.profile.papers == COUNT - added
        protected = vocabulary.term_words()
        estimate = match_topic(topic, full, protected, vocabulary, frozen=ours.profile)
        assert_extended_matches(ours, estimate)
        # The fill read exactly over the whole corpus is the best there is.
        exact = match_topic(topic, full, protected, vocabulary, frozen=ours.profile, indexed=True)
        assert_extended_matches(exact, ours)
        decided += bool(ours.profile.weights)
    assert decided > len(vocabulary.topics) // 2  # most topics have a profile to freeze


def _unsampled(rows: Rows, count: int) -> Rows:
    """`count` of the rows after the first COUNT - 100 whose ids, appended,
    leave the corpus-frequency sample as it was (ids renumbered to follow)."""
    base = rows[: COUNT - 100]
    ids = np.asarray([r[0] for r in base], dtype=np.int64)
    before = ids[background_sample(ids)]
    chosen: list[tuple[int, str, str]] = []
    next_id = int(ids[-1]) + 1
    for _, title, summary in rows[COUNT - 100 :]:
        while True:
            grown = np.append(ids, next_id)
            next_id += 1
            if np.array_equal(grown[background_sample(grown)], before):
                break
        chosen.append((next_id - 1, title, summary))
        ids = grown
        if len(chosen) == count:
            break
    return (*base, *chosen)


def test_appends_differ_from_a_fresh_match_only_where_the_profile_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A sample smaller than the corpus, so appended papers can stay out of it.
    monkeypatch.setattr("paperbot.core.topics._feedback.BACKGROUND_DOCS", 300)
    rows = _unsampled(_rows(), 20)
    same = changed = 0
    for ours, fresh in _extended(COUNT - 100, rows).values():
        if ours.profile.weights == fresh.profile.weights:
            # The new papers held no clear match among the profile's best:
            # the same matches and near papers as a full rebuild.
            same += 1
            assert_extended_matches(ours, fresh)
            continue
        changed += 1
        # Only borderline papers (below a clear match's score) differ; every
        # paper both keep has the same score.
        mine: dict[int, float] = dict(zip(ours.ids.tolist(), ours.scores.tolist(), strict=True))
        theirs: dict[int, float] = dict(zip(fresh.ids.tolist(), fresh.scores.tolist(), strict=True))
        for paper in mine.keys() ^ theirs.keys():
            assert {**theirs, **mine}[paper] < STRONG_SCORE
        assert all(mine[p] == theirs[p] for p in mine.keys() & theirs.keys())
    assert same > 10
    assert changed > 0  # a new clear match among the best changes a profile


def test_past_the_refresh_share_a_topic_is_matched_afresh() -> None:
    rows = _rows()
    split = int(COUNT / (1 + REFRESH_SHARE)) - 5
    for ours, fresh in _extended(split, rows).values():
        assert ours.profile.since == 0
        assert_same_matches(ours, fresh)


def test_a_stale_profile_after_several_appends_is_matched_afresh() -> None:
    rows = _rows()
    vocabulary = shipped_vocabulary()
    protected = vocabulary.term_words()
    topic = vocabulary.topics[0]
    split = 1000
    corpus = build_corpus(rows[:split])
    found = match_topic(topic, corpus, protected, vocabulary)
    sinces = []
    for start in range(split, COUNT, 40):
        appended = append_corpus(corpus, rows[start : start + 40])
        assert appended is not None
        corpus, part = appended
        found = extend_matches(found, topic, corpus, part, protected, vocabulary)
        sinces.append(found.profile.since)
        if found.profile.since == 0:
            assert_same_matches(found, match_topic(topic, corpus, protected, vocabulary))
    assert sinces == [40, 80, 0, 40, 80]  # 120 > 10% of 1,000: afresh
    assert found.profile.papers == split + 120


@pytest.mark.parametrize(
    ("old", "new", "ids"),
    [
        # Matches best first, ties by id; the NEAR_LIMIT best near papers.
        ([(1, 3.0), (4, 2.0)], [(9, 2.5), (7, 2.0)], [1, 9, 4, 7]),
        ([], [(9, 2.0)], [9]),
    ],
)
def test_merged_matches_are_ordered_as_match_topic_orders_them(
    old: list[tuple[int, float]],
    new: list[tuple[int, float]],
    ids: list[int],
) -> None:
    def matches(pairs: list[tuple[int, float]], near_from: int) -> TopicMatches:
        near = np.arange(near_from, near_from + NEAR_LIMIT, dtype=np.int64)
        return TopicMatches(
            np.asarray([p for p, _ in pairs], dtype=np.int64),
            np.asarray([s for _, s in pairs], dtype=np.float64),
            near,
            np.linspace(1.0, 0.1, NEAR_LIMIT) + 0.01 * (near_from > 100),
        )

    merged = merge_matches(matches(old, 100), matches(new, 200))
    assert merged.ids.tolist() == ids
    assert len(merged.near_ids) == NEAR_LIMIT
    # Each near score of the later part is a little higher: it leads each pair.
    assert merged.near_ids.tolist()[:4] == [200, 100, 201, 101]


@pytest.mark.parametrize(("size", "added"), [(10, 1), (1_990, 20), (5_000, 50), (20_000, 200)])
def test_the_frequency_sample_is_stable_under_appends(size: int, added: int) -> None:
    ids = np.arange(1, size + 1, dtype=np.int64) * 3
    grown = np.concatenate([ids, ids[-1] + np.arange(1, added + 1, dtype=np.int64)])
    before = set(ids[background_sample(ids)].tolist())
    after = set(grown[background_sample(grown)].tolist())
    assert len(after) == min(len(grown), 2_000)
    entered = after - before
    # Only appended papers enter, each pushing out at most one old paper.
    assert entered <= set(grown[size:].tolist())
    assert len(before - after) <= len(entered)
    assert after >= before or len(grown) > 2_000


def test_removed_papers_drop_out_and_the_rest_is_decided_as_before() -> None:
    rows = _rows()
    vocabulary = shipped_vocabulary()
    protected = vocabulary.term_words()
    base = build_corpus(rows[:1100])
    appended = append_corpus(base, rows[1100:1110])
    assert appended is not None
    corpus, part = appended
    checked = 0
    for topic in vocabulary.topics:
        old = match_topic(topic, base, protected, vocabulary)
        removed = {*old.ids[:2].tolist(), *old.near_ids[:2].tolist()}
        ours = extend_matches(old, topic, corpus, part, protected, vocabulary, removed=removed)
        assert ours.profile.since == 10 + len(removed)
        assert not removed & {*ours.ids.tolist(), *ours.near_ids.tolist()}
        live = build_corpus(r for r in rows[:1110] if r[0] not in removed)
        theirs = match_topic(topic, live, protected, vocabulary, frozen=ours.profile)
        assert np.array_equal(ours.ids, theirs.ids)
        assert np.array_equal(ours.scores, theirs.scores)
        # The near places of removed papers stay empty or go to new papers
        # (the old next best were not kept): every near paper with word
        # evidence is one of theirs or new.
        words = ours.near_ids[ours.near_scores > CLOSE_SCALE].tolist()
        assert set(words) <= {*theirs.near_ids.tolist(), *part.ids.tolist()}
        assert len(ours.near_ids) >= len(theirs.near_ids) - len(removed)
        checked += bool(removed)
    assert checked > len(vocabulary.topics) // 2
