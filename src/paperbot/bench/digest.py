"""Pick a digest for a server with many subscribers over a large corpus.

Baseline in the same process: the straightforward picker (dictionaries of
per-subscriber best matches for every paper, a full sort, a greedy scan),
which computes the same ranking; the run checks both pick the same papers.
`pick_vs_baseline` is our time over the baseline's (lower is better).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from paperbot.argtypes import positive_int
from paperbot.bench.memory import peak_rss_mb
from paperbot.bench.synthetic import VENUES
from paperbot.core.digest import (
    FILL_REASON,
    TOPIC_CAP,
    VENUE_DECAY,
    CorpusArrays,
    PreparedDemand,
    TopicDemand,
    match_reason,
    pick,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--papers", type=positive_int, default=100_000, help="corpus size")
    parser.add_argument("--subscribers", type=positive_int, default=1_000, help="subscribers")
    parser.add_argument("--topics", type=positive_int, default=120, help="topic vocabulary size")
    parser.add_argument("--count", type=positive_int, default=10, help="picks per post")
    parser.add_argument("--posted", type=positive_int, default=20_000, help="already posted")
    parser.add_argument("--repeat", type=positive_int, default=5, help="timed runs (best kept)")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    rows, demands, posted = synthetic_server(
        args.papers, args.subscribers, args.topics, args.posted, seed=11
    )
    start = time.perf_counter()
    corpus = CorpusArrays.build(rows)
    corpus_build_s = time.perf_counter() - start
    pick_times, prepare_times = [], []
    for _ in range(args.repeat):
        start = time.perf_counter()
        prepared = PreparedDemand.build(corpus, demands)
        middle = time.perf_counter()
        plan = pick(corpus, prepared, posted, args.count)
        end = time.perf_counter()
        prepare_times.append(middle - start)
        pick_times.append(end - start)
    start = time.perf_counter()
    baseline = naive_pick(rows, demands, posted, args.count)
    baseline_s = time.perf_counter() - start
    ours = [(p.paper_id, p.reason) for p in plan.picks]
    best = min(pick_times)
    return {
        "papers": len(rows),
        "subscribers": args.subscribers,
        "topics": len(demands),
        "matches": int(sum(len(d.ids) for d in demands)),
        "posted": len(posted),
        "count": args.count,
        "corpus_arrays_build_ms": corpus_build_s * 1000,
        "prepare_ms": min(prepare_times) * 1000,
        "pick_ms": best * 1000,
        "baseline_ms": baseline_s * 1000,
        "pick_vs_baseline": best / baseline_s,
        "same_picks_as_baseline": ours == baseline,
        "within_200ms": best <= 0.2,
        "peak_rss_mb": peak_rss_mb(),
    }


def synthetic_server(
    papers: int, subscribers: int, topics: int, posted: int, seed: int
) -> tuple[list[tuple[int, str, int]], list[TopicDemand], list[int]]:
    """A corpus, topic matches with skewed sizes, and Zipf-popular subscriptions."""
    rng = np.random.default_rng(seed)
    py_rng = random.Random(seed)
    ids = np.arange(1, papers + 1, dtype=np.int64)
    rows = [(int(i), *VENUES[int(i) % len(VENUES)]) for i in ids]
    popularity = 1.0 / np.arange(1, topics + 1)
    popularity /= popularity.sum()
    subs: dict[int, list[int]] = {t: [] for t in range(topics)}
    for user in range(subscribers):
        wanted = rng.choice(topics, size=py_rng.randint(1, 5), replace=False, p=popularity)
        for t in wanted:
            subs[int(t)].append(10**17 + user)
    demands = []
    for t in range(topics):
        # Topic sizes from 0.1% to ~5% of the corpus, like a real vocabulary.
        size = int(papers * rng.uniform(0.001, 0.05))
        matched = np.sort(rng.choice(ids, size=size, replace=False))
        scores = np.round(rng.uniform(0.3, 1.0, size=size), 3)
        demands.append(TopicDemand(f"topic {t}", tuple(subs[t]), matched, scores))
    already = sorted(py_rng.sample(range(1, papers + 1), min(posted, papers)))
    return rows, demands, already


def naive_pick(
    rows: Sequence[tuple[int, str, int]],
    demands: Sequence[TopicDemand],
    posted: Sequence[int],
    count: int,
) -> list[tuple[int, str]]:
    """The same ranking, computed the obvious way: per paper, per subscriber."""
    done = set(posted)
    info = {pid: (venue, year) for pid, venue, year in rows}
    live = [d for d in demands if d.subscribers and len(d.ids)]
    users: dict[int, set[int]] = {}
    relevance: dict[int, float] = {}
    topic_hits: dict[int, dict[int, float]] = {}
    for row, demand in enumerate(live):
        for pid, raw in zip(demand.ids.tolist(), demand.scores.tolist(), strict=True):
            score = min(max(raw, 0.0), 1.0)
            if pid in done or pid not in info or score <= 0:
                continue
            topic_hits.setdefault(pid, {})[row] = score
            matched_users = users.setdefault(pid, set())
            for user in demand.subscribers:
                matched_users.add(user)
                relevance[pid] = relevance.get(pid, 0.0) + score
    ranked = sorted(relevance, key=lambda pid: (-relevance[pid], pid))
    picks: list[tuple[int, str]] = []
    topic_counts: dict[int, int] = {}
    venue_counts: dict[str, int] = {}
    taken: set[int] = set()
    while len(picks) < count:
        choice: tuple[float, int, int] | None = None
        for pid in ranked:
            if pid in taken:
                continue
            hits = topic_hits[pid]
            order = sorted(hits, key=lambda r: (-hits[r] * len(set(live[r].subscribers)), r))
            open_row = next((r for r in order if topic_counts.get(r, 0) < TOPIC_CAP), None)
            if open_row is None:
                continue
            effective = relevance[pid] * VENUE_DECAY ** venue_counts.get(info[pid][0], 0)
            if choice is None or (effective, -pid) > (choice[0], -choice[1]):
                choice = (effective, pid, open_row)
        if choice is None:
            break
        _, pid, row = choice
        hits = topic_hits[pid]
        order = sorted(hits, key=lambda r: (-hits[r] * len(set(live[r].subscribers)), r))
        topics = [live[row].topic, *(live[r].topic for r in order if r != row)]
        picks.append((pid, match_reason(topics, len(users[pid]))))
        taken.add(pid)
        topic_counts[row] = topic_counts.get(row, 0) + 1
        venue_counts[info[pid][0]] = venue_counts.get(info[pid][0], 0) + 1
    fill = sorted(
        (r for r in rows if r[0] not in done and r[0] not in taken),
        key=lambda r: (-r[2], r[0]),
    )
    by_group: dict[tuple[int, str], list[int]] = {}
    for pid, venue, year in fill:
        by_group.setdefault((year, venue), []).append(pid)
    dealt = sorted(
        (
            (year, rank, venue, pid)
            for (year, venue), ids in by_group.items()
            for rank, pid in enumerate(ids)
        ),
        key=lambda t: (-t[0], t[1], t[2], t[3]),
    )
    picks += [(pid, FILL_REASON) for *_, pid in dealt[: count - len(picks)]]
    return picks
