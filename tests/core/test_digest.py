"""Picking: no repeats, ranking, topic balance, MMR diversity, filling, nothing left."""

from __future__ import annotations

import numpy as np
import pytest

from paperbot.bench.digest import naive_pick, sparse_vectors, synthetic_server, synthetic_texts
from paperbot.core.digest import (
    CorpusArrays,
    DigestPlan,
    PreparedDemand,
    TopicDemand,
    fill_reason,
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
    demands: list[TopicDemand],
    posted: list[int] | None = None,
    count: int = 3,
    rows=ROWS,
    texts: dict[int, str] | None = None,
) -> DigestPlan:
    corpus = CorpusArrays.build(rows, texts)
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


# 20 papers over the venues; topic "a" matches 13 of them, "b" 3 others.
MANY = [(i, ("NeurIPS", "ICML", "ICLR")[i % 3], 2025) for i in range(1, 21)]
A13 = {i: 1.0 - i / 100 for i in range(1, 14)}
B3 = {14: 0.5, 15: 0.5, 16: 0.5}


def kinds(plan: DigestPlan) -> list[str]:
    return [p.kind for p in plan.picks]


@pytest.mark.parametrize(
    ("demands", "posted", "count", "matches", "must_include"),
    [
        # One reader, one topic with 13 matches: 10 matches, no fill.
        ([demand("a", [1], A13)], [], 10, 10, set()),
        # Posted papers leave 10 unposted matches: still no fill.
        ([demand("a", [1], A13)], [1, 2, 3], 10, 10, set()),
        # Posted papers leave 8: 8 matches, then 2 fill.
        ([demand("a", [1], A13)], [1, 2, 3, 4, 5], 10, 8, set()),
        # Two topics: the weaker, smaller one is represented.
        ([demand("a", [1], A13), demand("b", [2], B3)], [], 10, 10, {14, 15, 16}),
        # Even when the stronger topic has more subscribers.
        ([demand("a", [1, 2, 3], A13), demand("b", [4], B3)], [], 10, 10, {14}),
        # Matches run out: every match, then fill.
        ([demand("b", [2], B3)], [], 6, 3, {14, 15, 16}),
    ],
)
def test_matches_first_fill_only_after_them(
    demands: list[TopicDemand],
    posted: list[int],
    count: int,
    matches: int,
    must_include: set[int],
) -> None:
    plan = run(demands, posted=posted, count=count, rows=MANY)
    assert kinds(plan) == ["match"] * matches + ["fill"] * (count - matches)
    assert must_include <= set(ids(plan))
    assert not set(ids(plan)) & set(posted)
    assert len(set(ids(plan))) == len(ids(plan))
    for p in plan.picks:
        assert (p.kind == "fill") is (not p.topics)
        if p.kind == "fill":
            assert p.reason == fill_reason(len({u for d in demands for u in d.subscribers}))


def test_one_topic_does_not_crowd_out_the_others() -> None:
    # Topic a matches everything strongly; b and c are weaker but distinct.
    topics = [
        demand("a", [1, 2, 3], {2: 1.0, 3: 1.0, 4: 1.0, 5: 1.0, 6: 1.0}),
        demand("b", [4], {7: 0.5}),
        demand("c", [5], {8: 0.4}),
    ]
    plan = run(topics, count=5)
    # Each pick halves a topic's weight: a (3 people) gets 3 picks, b and c 1 each.
    assert {7, 8} <= set(ids(plan))
    assert kinds(plan) == ["match"] * 5


def test_topics_are_listed_by_contribution() -> None:
    topics = [
        demand("a", [1, 2, 3], {2: 1.0, 3: 1.0, 6: 0.3}),
        demand("b", [4], {6: 0.5}),
    ]
    plan = run(topics, count=3)
    by_id = {p.paper_id: p for p in plan.picks}
    # a contributes 3 x 0.3 = 0.9, b 1 x 0.5.
    assert by_id[6].topics == ("a", "b")
    assert by_id[6].reason == "matches a, b — 4 subscribers · 4 位订阅者"


SAME_VENUE = [(i, "NeurIPS", 2025) for i in range(1, 5)]
NEAR = "Scaling laws for neural language models\n我们研究了语言模型损失随模型规模、数据量和计算量变化的幂律关系。"
TEXTS = {
    1: NEAR,
    2: NEAR.replace("neural ", "") + "（修订版）",
    3: "Direct preference optimization\n直接偏好优化：不训练奖励模型而对齐语言模型。",
    4: "Tokenizer-free byte models\n字节级模型无需分词器。",
}


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        # Without texts relevance alone decides: the near-duplicate 2 comes second.
        (None, [1, 2]),
        # With texts MMR sees 2 nearly repeats 1 and takes the next relevant paper.
        (TEXTS, [1, 3]),
    ],
)
def test_mmr_avoids_near_duplicates(texts: dict[int, str] | None, expected: list[int]) -> None:
    topics = [demand("a", [1], {1: 1.0, 2: 0.98, 3: 0.8, 4: 0.3})]
    assert ids(run(topics, count=2, rows=SAME_VENUE, texts=texts)) == expected


def test_the_near_duplicate_is_still_picked_before_any_fill() -> None:
    topics = [demand("a", [1], {1: 1.0, 2: 0.98})]
    plan = run(topics, count=3, rows=SAME_VENUE, texts=TEXTS)
    assert ids(plan)[:2] == [1, 2]
    assert kinds(plan) == ["match", "match", "fill"]


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
    audience = len({u for d in demands for u in d.subscribers})
    assert all(p.reason == fill_reason(audience) for p in plan.picks if p.kind == "fill")
    assert [p.kind for p in plan.picks if not p.topics] == ["fill"] * (count - len(demands))


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
    assert plan.picks[0].reason == "matches scaling laws — 3 subscribers · 3 位订阅者"
    assert plan.picks[0].subscribers == (1, 2, 3)


@pytest.mark.parametrize(
    ("topics", "n", "audience", "expected"),
    [
        (
            ["Scaling laws · 缩放定律"],
            1,
            1,
            "matches your topic Scaling laws · 缩放定律 — 符合你关注的主题",
        ),
        (["a", "b"], 1, 1, "matches your topics a, b — 符合你关注的主题"),
        (["a"], 1, 2, "matches a — 1 subscriber · 1 位订阅者"),
        (["a", "b", "c", "d", "e"], 7, 9, "matches a, b, c +2 — 7 subscribers · 7 位订阅者"),
    ],
)
def test_match_reason(topics: list[str], n: int, audience: int, expected: str) -> None:
    assert match_reason(topics, n, audience) == expected


@pytest.mark.parametrize(
    ("audience", "expected"),
    [
        (0, "new to this channel (no topics followed here) · 本频道未推送过的论文"),
        (1, "new to this channel, outside your topics · 本频道未推送过，不在你关注的主题内"),
        (3, "new to this channel, outside the subscribed topics · 本频道未推送过，不在订阅主题内"),
    ],
)
def test_fill_reason(audience: int, expected: str) -> None:
    assert fill_reason(audience) == expected


def test_unknown_ids_and_bad_scores_are_ignored() -> None:
    topics = [demand("a", [1], {999: 1.0, 2: -3.0, 3: 7.0})]
    plan = run(topics, count=1)
    assert ids(plan) == [3]
    assert plan.picks[0].relevance == 1.0  # scores are clipped to [0, 1]


def test_a_subscriber_in_two_matching_topics_is_counted_once_in_the_reason() -> None:
    topics = [demand("a", [1, 2], {3: 1.0}), demand("b", [2, 3], {3: 1.0})]
    plan = run(topics, count=1)
    assert plan.picks[0].subscribers == (1, 2, 3)
    assert plan.picks[0].reason.endswith("3 subscribers · 3 位订阅者")


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_agrees_with_the_naive_picker(seed: int) -> None:
    """The array picker and the obvious dictionary picker choose the same papers."""
    rows, demands, posted = synthetic_server(3000, 80, 25, 500, seed=seed)
    corpus = CorpusArrays.build(rows, synthetic_texts(rows, seed))
    plan = pick(corpus, PreparedDemand.build(corpus, demands), posted, 10)
    expected = naive_pick(rows, demands, posted, 10, sparse_vectors(corpus))
    assert [(p.paper_id, p.reason) for p in plan.picks] == expected


@pytest.mark.parametrize("count", [1, 4, 40])
def test_agrees_with_the_naive_picker_when_matches_run_out(count: int) -> None:
    rows, demands, posted = synthetic_server(400, 6, 8, 50, seed=9)
    corpus = CorpusArrays.build(rows, synthetic_texts(rows, 9))
    plan = pick(corpus, PreparedDemand.build(corpus, demands[:1]), posted, count)
    expected = naive_pick(rows, demands[:1], posted, count, sparse_vectors(corpus))
    assert [(p.paper_id, p.reason) for p in plan.picks] == expected


def test_count_must_be_positive() -> None:
    with pytest.raises(ValueError, match="count must be at least 1"):
        run([], count=0)
