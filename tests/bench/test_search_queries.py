"""`bench search`'s query set and its per-group percentiles."""

from __future__ import annotations

import pytest

from paperbot.bench.search_queries import (
    GROUPS,
    KEYWORD_QUERIES,
    QUERIES,
    QUESTION_QUERIES,
    group_figures,
    percentile,
)
from paperbot.core.text import tokens


def test_every_query_is_in_one_group() -> None:
    assert QUERIES == KEYWORD_QUERIES + QUESTION_QUERIES
    assert sorted(q for members in GROUPS.values() for q in members) == sorted(QUERIES)
    assert len(set(QUERIES)) == len(QUERIES)


def test_questions_are_long_or_chinese_sentences() -> None:
    # Latin questions have 4+ words; Chinese ones are one long run or several.
    for query in QUESTION_QUERIES:
        words = tokens(query.lower())
        assert len(words) >= 4 or sum(map(len, words)) >= 8, query


@pytest.mark.parametrize(
    ("values", "pct", "expected"),
    [
        ([5.0], 95, 5.0),
        ([1.0, 2.0, 3.0], 50, 2.0),
        ([float(i) for i in range(1, 102)], 95, 96.0),
        ([float(i) for i in range(1, 102)], 50, 51.0),
    ],
)
def test_percentile(values: list[float], pct: int, expected: float) -> None:
    assert percentile(values, pct) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("latencies", "prefix", "expected"),
    [
        # one pass: a, b are keywords, c a question
        ([1.0, 3.0, 10.0], "", {"k_p50_ms": 2.0, "k_p95_ms": 2.9, "q_p50_ms": 10.0}),
        # two passes: each query's latencies go to its group
        (
            [1.0, 3.0, 10.0, 1.0, 3.0, 20.0],
            "restart_",
            {"restart_k_p50_ms": 2.0, "restart_q_p50_ms": 15.0, "restart_q_p95_ms": 19.5},
        ),
    ],
)
def test_group_figures(latencies: list[float], prefix: str, expected: dict[str, float]) -> None:
    groups = {"k": ("a", "b"), "q": ("c",)}
    got = group_figures(latencies, ("a", "b", "c"), groups, prefix=prefix)
    assert set(got) == {f"{prefix}{g}_{p}_ms" for g in groups for p in ("p50", "p95")}
    for key, value in expected.items():
        assert got[key] == pytest.approx(value)


def test_a_group_without_latencies_is_left_out() -> None:
    assert group_figures([1.0], ("a",), {"k": ("a",), "q": ("c",)}) == {
        "k_p50_ms": 1.0,
        "k_p95_ms": 1.0,
    }
