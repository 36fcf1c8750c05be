"""Baselines the benchmarks compare against."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from paperbot.core.models import Paper


@dataclass(frozen=True, slots=True)
class BaselineCorpus:
    """Texts lower-cased once, for the naive linear-scan ranker."""

    ids: tuple[int, ...]
    titles: tuple[str, ...]
    summaries: tuple[str, ...]


def baseline_corpus(papers: Sequence[Paper]) -> BaselineCorpus:
    return BaselineCorpus(
        tuple(p.id for p in papers),
        tuple(p.title.lower() for p in papers),
        tuple(p.summary.lower() for p in papers),
    )


def baseline_rank(
    corpus: BaselineCorpus, query: str, limit: int = 10
) -> tuple[list[int], list[float]]:
    """arxiv-sanity-lite's `search_rank`, with the text lower-cased once
    instead of per query: per query word, 20 if it is in the title, plus its
    count in the summary (at most 3); a scan over every paper. For the
    benchmark only."""
    qs = query.lower().strip().split()
    pairs: list[tuple[float, int]] = []
    for pid, title, summary in zip(corpus.ids, corpus.titles, corpus.summaries, strict=True):
        score = 20.0 * sum(int(title.count(q) > 0) for q in qs)
        score += 1.0 * sum(min(3, summary.count(q)) for q in qs)
        if score > 0:
            pairs.append((score, pid))
    pairs.sort(key=lambda item: (-item[0], item[1]))
    top = pairs[:limit]
    return [pid for _, pid in top], [s for s, _ in top]
