"""Near fill: when a reader's matches run out, papers with some evidence for
their topics (below the match threshold) come before unrelated new papers,
as fill picks that say they are close to, not matching, the topics."""

from __future__ import annotations

import numpy as np
import pytest

from paperbot.core.digest import CorpusArrays, DigestPlan, PreparedDemand, TopicDemand, pick
from paperbot.core.digest_fill import fill_reason, near_reason
from paperbot.core.topics import build_corpus, match_topic, parse_vocabulary
from paperbot.core.topics._matching import NEAR_LIMIT, RELEVANCE_THRESHOLD

# id -> (venue, year); 8 is the newest, so plain fill would take it first.
ROWS = [(i, "ICML", 2020 + i) for i in range(1, 9)]


def demand(
    topic: str, subscribers: list[int], matches: dict[int, float], near: dict[int, float]
) -> TopicDemand:
    return TopicDemand(
        topic,
        tuple(subscribers),
        np.array(list(matches), dtype=np.int64),
        np.array(list(matches.values()), dtype=np.float64),
        np.array(list(near), dtype=np.int64),
        np.array(list(near.values()), dtype=np.float64),
    )


def run(demands: list[TopicDemand], count: int, posted: list[int] | None = None) -> DigestPlan:
    corpus = CorpusArrays.build(ROWS)
    return pick(corpus, PreparedDemand.build(corpus, demands), posted or [], count)


@pytest.mark.parametrize(
    ("demands", "count", "posted", "expected"),
    [
        # Matches first, then near matches best first, then the newest papers.
        ([demand("a", [1], {1: 0.9}, {2: 0.2, 3: 0.4})], 4, [], [1, 3, 2, 8]),
        # A posted near match is skipped.
        ([demand("a", [1], {1: 0.9}, {2: 0.2, 3: 0.4})], 3, [3], [1, 2, 8]),
        # Near score times subscribers: topic b's near paper (2 people) first.
        (
            [demand("a", [1], {}, {2: 0.3}), demand("b", [2, 3], {}, {4: 0.2})],
            2,
            [],
            [4, 2],
        ),
        # A topic with near matches only still serves its reader.
        ([demand("a", [1], {}, {5: 0.1})], 2, [], [5, 8]),
        # A paper matched by one topic and near another is picked once, as a match.
        ([demand("a", [1], {2: 0.5}, {}), demand("b", [1], {}, {2: 0.3})], 2, [], [2, 8]),
    ],
)
def test_near_matches_fill_before_unrelated_papers(
    demands: list[TopicDemand], count: int, posted: list[int], expected: list[int]
) -> None:
    plan = run(demands, count, posted)
    assert [p.paper_id for p in plan.picks] == expected


def test_near_picks_are_fill_and_say_they_are_close_not_matching() -> None:
    plan = run([demand("Scaling laws", [1], {1: 0.9}, {2: 0.3})], 3)
    kinds = [(p.paper_id, p.kind) for p in plan.picks]
    assert kinds == [(1, "match"), (2, "fill"), (8, "fill")]
    assert plan.picks[1].reason == near_reason(["Scaling laws"], 1)
    assert "close to your topic Scaling laws" in plan.picks[1].reason
    assert "match" not in plan.picks[1].reason.split(",")[0]
    assert plan.picks[2].reason == fill_reason(1)


@pytest.mark.parametrize(
    ("topics", "audience", "expected"),
    [
        (
            ["Scaling laws"],
            1,
            "close to your topic Scaling laws, not a full match · 与关注主题相近",
        ),
        (["A", "B"], 1, "close to your topics A, B, not a full match · 与关注主题相近"),
        (["A"], 5, "close to the topic A, not a full match · 与关注主题相近"),
        (
            ["A", "B", "C", "D"],
            5,
            "close to the topics A, B, C +1, not a full match · 与关注主题相近",
        ),
    ],
)
def test_near_reason(topics: list[str], audience: int, expected: str) -> None:
    assert near_reason(topics, audience) == expected


VOCABULARY = """
[[topic]]
id = "scaling-laws"
name = "Scaling laws"
zh = "缩放定律"
"""

FILLER = "这篇论文研究优化器在大规模训练中的表现，并给出新的收敛分析。" * 3


def test_match_topic_keeps_a_few_near_matches_below_the_threshold() -> None:
    vocabulary = parse_vocabulary(VOCABULARY)
    topic = vocabulary.get("scaling-laws")
    assert topic is not None
    papers = [(0, "Scaling laws for everything", "")]
    # A passing mention late in the summary: evidence, but below the threshold.
    papers += [(i, f"Paper {i}", FILLER + "附带提到缩放定律。") for i in range(1, NEAR_LIMIT + 6)]
    papers.append((99, "Unrelated", FILLER))
    found = match_topic(topic, build_corpus(papers), vocabulary.term_words(), vocabulary)
    assert found.ids.tolist() == [0]
    assert len(found.near_ids) == NEAR_LIMIT
    assert 0 not in found.near_ids.tolist()
    assert 99 not in found.near_ids.tolist()
    assert np.all((found.near_scores > 0) & (found.near_scores < RELEVANCE_THRESHOLD))
    assert found.near_ids.tolist() == sorted(found.near_ids.tolist())  # ties by id
