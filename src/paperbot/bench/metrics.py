"""Relevance metrics for `paperbot bench quality`, and its naive topic baseline.

Pure functions over paper ids: no I/O, no services, so they are tested
table-driven and the bench only has to collect ids.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass


def pick_precision(picks: Sequence[int], relevant: Collection[int], k: int) -> float:
    """Relevant papers among the first `k` picks over min(k, relevant papers),
    so a topic with 3 relevant papers scores 1.0 when all 3 are picked at 10.
    0.0 when nothing is relevant (the judged data never has such a topic)."""
    if k < 1:
        raise ValueError(f"k must be at least 1 (got {k})")
    best_possible = min(k, len(relevant))
    if best_possible == 0:
        return 0.0
    wanted = set(relevant)
    return sum(1 for paper in picks[:k] if paper in wanted) / best_possible


def fill_share(picks: Sequence[int], matched: Collection[int]) -> float:
    """The share of picks that are not matches of the topic (fill papers);
    0.0 for no picks."""
    if not picks:
        return 0.0
    matching = set(matched)
    return sum(1 for paper in picks if paper not in matching) / len(picks)


def set_precision(found: Collection[int], relevant: Collection[int]) -> float:
    """Relevant papers among those found; 0.0 when nothing is found."""
    if not found:
        return 0.0
    return len(set(found) & set(relevant)) / len(set(found))


def set_recall(found: Collection[int], relevant: Collection[int]) -> float:
    """Relevant papers that were found; 0.0 when nothing is relevant."""
    if not relevant:
        return 0.0
    return len(set(found) & set(relevant)) / len(set(relevant))


def first_hit_rank(ranked: Sequence[int], expected: Collection[int]) -> int | None:
    """1-based rank of the first expected paper in `ranked`, or None."""
    wanted = set(expected)
    return next((at for at, paper in enumerate(ranked, 1) if paper in wanted), None)


def hit_at(rank: int | None, k: int) -> float:
    """1.0 when the first expected paper is within the top `k`."""
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank(rank: int | None) -> float:
    """1 / rank of the first expected paper; 0.0 when it was not found."""
    return 0.0 if rank is None else 1.0 / rank


def mean(values: Iterable[float]) -> float:
    """The arithmetic mean; 0.0 for no values."""
    items = list(values)
    return sum(items) / len(items) if items else 0.0


@dataclass(frozen=True, slots=True)
class BaselinePaper:
    """A paper as the naive topic baseline sees it: one lower-cased text."""

    id: int
    year: int
    text: str


def baseline_paper(paper_id: int, year: int, title: str, summary: str) -> BaselinePaper:
    return BaselinePaper(paper_id, year, f"{title}\n{summary}".lower())


def baseline_matches(papers: Iterable[BaselinePaper], names: Iterable[str]) -> list[int]:
    """Papers whose lower-cased title + summary contains any of `names` as a
    plain substring (no folding, no word boundaries, no typos), newest first
    (year descending, then id)."""
    needles = [n.lower() for n in names if n.strip()]
    found = [p for p in papers if any(needle in p.text for needle in needles)]
    return [p.id for p in sorted(found, key=lambda p: (-p.year, p.id))]


def baseline_picks(
    matches: Sequence[int], papers: Iterable[BaselinePaper], count: int
) -> list[int]:
    """The naive digest: matches in the given order, then the newest other
    papers (year descending, then id) until `count` picks."""
    picks = list(matches[:count])
    taken = set(picks)
    newest = sorted((p for p in papers if p.id not in taken), key=lambda p: (-p.year, p.id))
    picks += [p.id for p in newest[: count - len(picks)]]
    return picks
