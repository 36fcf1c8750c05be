"""The pure relevance metrics and the naive topic baseline of `bench quality`."""

from __future__ import annotations

import pytest

from paperbot.bench.metrics import (
    baseline_matches,
    baseline_paper,
    baseline_picks,
    fill_share,
    first_hit_rank,
    hit_at,
    mean,
    pick_precision,
    reciprocal_rank,
    set_precision,
    set_recall,
)


@pytest.mark.parametrize(
    ("picks", "relevant", "k", "expected"),
    [
        ([1, 2, 3, 4, 5], {1, 2, 3, 4, 5, 6}, 5, 1.0),
        ([1, 9, 3, 8, 7], {1, 2, 3, 4, 5, 6}, 5, 0.4),
        # fewer relevant papers than k: the best possible is all of them
        ([1, 2, 3, 7, 8, 9, 10, 11, 12, 13], {1, 2, 3}, 10, 1.0),
        ([1, 7, 8, 9, 10, 11, 12, 13, 14, 15], {1, 2, 3}, 10, 1 / 3),
        # only the first k picks count
        ([7, 8, 1, 2], {1, 2}, 2, 0.0),
        # fewer picks than k (a small corpus)
        ([1], {1, 2, 3, 4, 5, 6}, 5, 0.2),
        ([], {1, 2}, 5, 0.0),
        ([1, 2], set(), 5, 0.0),
    ],
)
def test_pick_precision(picks: list[int], relevant: set[int], k: int, expected: float) -> None:
    assert pick_precision(picks, relevant, k) == pytest.approx(expected)


def test_pick_precision_needs_a_positive_k() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        pick_precision([1], {1}, 0)


@pytest.mark.parametrize(
    ("picks", "matched", "expected"),
    [
        ([1, 2, 3, 4], {1, 2, 3, 4, 5}, 0.0),
        ([1, 2, 8, 9], {1, 2, 3}, 0.5),
        ([8, 9], set(), 1.0),
        ([], {1}, 0.0),
    ],
)
def test_fill_share(picks: list[int], matched: set[int], expected: float) -> None:
    assert fill_share(picks, matched) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("found", "relevant", "precision", "recall"),
    [
        ({1, 2, 3, 4}, {1, 2}, 0.5, 1.0),
        ({1}, {1, 2, 3, 4}, 1.0, 0.25),
        ({5, 6}, {1, 2}, 0.0, 0.0),
        (set(), {1, 2}, 0.0, 0.0),
        ({1, 2}, set(), 0.0, 0.0),
        ([1, 1, 2], {1, 3}, 0.5, 0.5),
    ],
)
def test_set_precision_and_recall(
    found: set[int], relevant: set[int], precision: float, recall: float
) -> None:
    assert set_precision(found, relevant) == pytest.approx(precision)
    assert set_recall(found, relevant) == pytest.approx(recall)


@pytest.mark.parametrize(
    ("ranked", "expected", "rank", "hit5", "rr"),
    [
        ([7, 3, 1], {1}, 3, 1.0, 1 / 3),
        ([1, 2, 3], {3, 1}, 1, 1.0, 1.0),
        ([9, 8, 7, 6, 5, 1], {1}, 6, 0.0, 1 / 6),
        ([9, 8], {1}, None, 0.0, 0.0),
        ([], {1}, None, 0.0, 0.0),
    ],
)
def test_ranks(
    ranked: list[int], expected: set[int], rank: int | None, hit5: float, rr: float
) -> None:
    found = first_hit_rank(ranked, expected)
    assert found == rank
    assert hit_at(found, 5) == hit5
    assert reciprocal_rank(found) == pytest.approx(rr)


@pytest.mark.parametrize(
    ("values", "expected"), [([1.0, 0.0, 0.5], 0.5), ([0.25], 0.25), ([], 0.0)]
)
def test_mean(values: list[float], expected: float) -> None:
    assert mean(values) == pytest.approx(expected)


PAPERS = [
    baseline_paper(1, 2023, "Scaling Laws for Everything", "关于缩放定律"),
    baseline_paper(2, 2025, "Something Else", "本文研究缩放定律与数据"),
    baseline_paper(3, 2025, "Optimizers", "无关"),
    baseline_paper(4, 2024, "Rescaling", ""),
    baseline_paper(5, 2025, "LoRA", "low-rank 适配"),
]


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        # newest first, then by id; English and Chinese names both count
        (("scaling laws", "缩放定律"), [2, 1]),
        # a plain substring: no word boundaries ("rescaling" contains "scaling")
        (("scaling",), [4, 1]),
        (("LOW-RANK",), [5]),
        (("nothing here", " "), []),
    ],
)
def test_baseline_matches(names: tuple[str, ...], expected: list[int]) -> None:
    assert baseline_matches(PAPERS, names) == expected


@pytest.mark.parametrize(
    ("matches", "count", "expected"),
    [
        ([2, 1], 4, [2, 1, 3, 5]),  # filled with the newest others: 2025 (3, 5) first
        ([2, 1], 1, [2]),
        ([], 2, [2, 3]),
        ([1, 2, 3, 4, 5], 10, [1, 2, 3, 4, 5]),
    ],
)
def test_baseline_picks(matches: list[int], count: int, expected: list[int]) -> None:
    assert baseline_picks(matches, PAPERS, count) == expected
