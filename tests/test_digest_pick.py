"""Picking: no repeats, ranking, diversity, filling, nothing left."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from paperbot.bench.digest import naive_pick, synthetic_server
from paperbot.core.digest import (
    FILL_REASON,
    TOPIC_CAP,
    CorpusArrays,
    DigestPlan,
    PreparedDemand,
    TopicDemand,
    match_reason,
    pick,
)

# id -> (venue, year)
ROWS = [
    (1, "NeurIPS", 2023),
    (2, "NeurIPS", 2025),
    (3, "ICML", 2025),
    (4, "ICML", 2026),
    (5, "ICLR", 2026),
    (6, "ICLR", 2026),
    (7, "NeurIPS", 2025),
    (8, "ICML", 2026),
]


def demand(topic: str, subscribers: list[int], matches: dict[int, float]) -> TopicDemand:
    ids = np.array(list(matches), dtype=np.int64)
    scores = np.array(list(matches.values()), dtype=np.float64)
    return TopicDemand(topic, tuple(subscribers), ids, scores)


def run(
    demands: list[TopicDemand], posted: list[int] | None = None, count: int = 3, rows=ROWS
) -> DigestPlan:
    corpus = CorpusArrays.build(rows)
    return pick(corpus, PreparedDemand.build(corpus, demands), posted or [], count)


def ids(plan: DigestPlan) -> list[int]:
    return [p.paper_id for p in plan.picks]


@pytest.mark.parametrize(
    ("demands", "count", "expected"),
    [
        # More subscribers first: topic b (3 people) beats topic a (1 person).
        ([demand("a", [1], {2: 1.0}), demand("b", [2, 3, 4], {3: 1.0})], 2, [3, 2]),
        # Same subscribers, better match first.
        ([demand("a", [1, 2], {2: 0.4, 3: 0.9})], 2, [3, 2]),
        # A paper matching two of the server's topics beats one matching one.
        (
            [demand("a", [1], {2: 0.8, 3: 0.8}), demand("b", [2], {3: 0.8})],
            2,
            [3, 2],
        ),
        # Equal relevance: the lower id first (deterministic).
        ([demand("a", [1], {5: 0.5, 3: 0.5})], 2, [3, 5]),
    ],
)
def test_ranking(demands: list[TopicDemand], count: int, expected: list[int]) -> None:
    assert ids(run(demands, count=count)) == expected


@pytest.mark.parametrize(
    ("posted", "expected_first"),
    [([], 4), ([4], 8), ([4, 8], 6)],
)
def test_never_repeats_a_posted_paper(posted: list[int], expected_first: int) -> None:
    topics = [demand("x", [1, 2], {4: 1.0, 8: 0.9, 6: 0.8})]
    plan = run(topics, posted=posted, count=5)
    assert ids(plan)[0] == expected_first
    assert not set(ids(plan)) & set(posted)
    assert len(set(ids(plan))) == len(ids(plan))


def test_at_most_two_picks_per_topic() -> None:
    # Topic a matches everything strongly; b and c are weaker but distinct.
    topics = [
        demand("a", [1, 2, 3], {2: 1.0, 3: 1.0, 4: 1.0, 5: 1.0, 6: 1.0}),
        demand("b", [4], {7: 0.5}),
        demand("c", [5], {8: 0.4}),
    ]
    plan = run(topics, count=4)
    attributed = Counter(p.topics[0] for p in plan.picks if p.topics)
    assert attributed["a"] == TOPIC_CAP
    assert {7, 8} <= set(ids(plan))


def test_a_paper_counts_for_its_strongest_open_topic() -> None:
    # Paper 6 matches a (full after two picks) and b: it is picked for b.
    topics = [
        demand("a", [1, 2, 3], {2: 1.0, 3: 1.0, 6: 0.3}),
        demand("b", [4], {6: 0.5}),
    ]
    plan = run(topics, count=3)
    by_id = {p.paper_id: p for p in plan.picks}
    assert by_id[6].topics == ("b", "a")
    assert by_id[6].reason == "matches: b, a — 4 subscribers"


def test_venues_are_mixed() -> None:
    # Four equally strong NeurIPS-2025-heavy candidates and one ICML paper a bit weaker.
    rows = [(i, "NeurIPS", 2025) for i in range(1, 7)] + [(7, "ICML", 2025)]
    topics = [demand(t, [10 + n], {n: 1.0, 7: 0.8}) for n, t in enumerate("abcdef", start=1)]
    plan = run(topics, count=3, rows=rows)
    # Relevance of 7 is 6 x 0.8, the others 1.0: 7 leads, then the venue decay
    # keeps ICML from taking a second slot but NeurIPS papers follow.
    assert ids(plan)[0] == 7
    venues = {("ICML" if i == 7 else "NeurIPS") for i in ids(plan)}
    assert venues == {"ICML", "NeurIPS"}


def test_venue_decay_lets_another_venue_in() -> None:
    rows = [(1, "NeurIPS", 2025), (2, "NeurIPS", 2025), (3, "NeurIPS", 2025), (4, "ICML", 2025)]
    topics = [
        demand("a", [1], {1: 1.0}),
        demand("b", [2], {2: 1.0}),
        demand("c", [3], {3: 1.0}),
        demand("d", [4], {4: 0.75}),
    ]
    plan = run(topics, count=2, rows=rows)
    # Without a venue mix it would be [1, 2]; 0.75 > 1.0 x 0.7 lets ICML in.
    assert ids(plan) == [1, 4]


@pytest.mark.parametrize(
    ("demands", "posted", "count", "expected"),
    [
        # Nobody subscribed: newest venue year first, venues dealt in turns.
        ([], [], 4, [5, 4, 6, 8]),
        # One match, then the fill.
        ([demand("a", [1], {1: 1.0})], [], 3, [1, 5, 4]),
        # The fill skips posted papers.
        ([], [4, 5], 3, [6, 8, 3]),
    ],
)
def test_fill_with_newest_unposted(
    demands: list[TopicDemand], posted: list[int], count: int, expected: list[int]
) -> None:
    plan = run(demands, posted=posted, count=count)
    assert ids(plan) == expected
    assert all(p.reason == FILL_REASON for p in plan.picks if not p.topics)


@pytest.mark.parametrize(
    ("posted", "count", "picked", "remaining"),
    [
        (list(range(1, 9)), 3, 0, 0),  # everything posted: nothing left
        (list(range(1, 8)), 3, 1, 0),  # one left: the post says it is the last
        (list(range(1, 5)), 3, 3, 1),
    ],
)
def test_nothing_left_is_reported(
    posted: list[int], count: int, picked: int, remaining: int
) -> None:
    plan = run([demand("a", [1], {1: 1.0, 8: 1.0})], posted=posted, count=count)
    assert len(plan.picks) == picked
    assert plan.remaining == remaining
    assert plan.nothing_left is (picked == 0)


def test_the_reason_names_topics_and_subscribers() -> None:
    topics = [demand("scaling laws", [1, 2, 3], {2: 1.0})]
    plan = run(topics, count=1)
    assert plan.picks[0].reason == "matches: scaling laws — 3 subscribers"
    assert plan.picks[0].subscribers == (1, 2, 3)


@pytest.mark.parametrize(
    ("topics", "n", "expected"),
    [
        (["a"], 1, "matches: a — 1 subscriber"),
        (["a", "b", "c", "d", "e"], 7, "matches: a, b, c +2 — 7 subscribers"),
    ],
)
def test_match_reason(topics: list[str], n: int, expected: str) -> None:
    assert match_reason(topics, n) == expected


def test_unknown_ids_and_bad_scores_are_ignored() -> None:
    topics = [demand("a", [1], {999: 1.0, 2: -3.0, 3: 7.0})]
    plan = run(topics, count=1)
    assert ids(plan) == [3]
    assert plan.picks[0].relevance == 1.0  # scores are clipped to [0, 1]


def test_a_subscriber_in_two_matching_topics_is_counted_once_in_the_reason() -> None:
    topics = [demand("a", [1, 2], {3: 1.0}), demand("b", [2, 3], {3: 1.0})]
    plan = run(topics, count=1)
    assert plan.picks[0].subscribers == (1, 2, 3)
    assert plan.picks[0].reason.endswith("3 subscribers")


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_agrees_with_the_naive_picker(seed: int) -> None:
    """The array picker and the obvious dictionary picker choose the same papers."""
    rows, demands, posted = synthetic_server(3000, 80, 25, 500, seed=seed)
    corpus = CorpusArrays.build(rows)
    plan = pick(corpus, PreparedDemand.build(corpus, demands), posted, 10)
    assert [(p.paper_id, p.reason) for p in plan.picks] == naive_pick(rows, demands, posted, 10)


def test_count_must_be_positive() -> None:
    with pytest.raises(ValueError):
        run([], count=0)
