"""Pick a digest for a server with many subscribers over a large corpus.

Baseline in the same process: the straightforward picker (dictionaries of
per-paper topic matches and subscribers, every candidate's relevance and
maximal-marginal-relevance score recomputed for every pick, similarity by
dictionary intersection), which computes the same ranking; the run checks
both pick the same papers.
`pick_vs_baseline` is our time over the baseline's (lower is better).
With `--votes`, the same server's post when its readers vote, against the
pick without votes of this run (`bench/digest_votes.py`).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from paperbot.argtypes import positive_int
from paperbot.bench import BenchmarkRefused
from paperbot.bench.backends import add_backend_arguments, on_backends
from paperbot.bench.digest_posts import measure_posts, write_posts_corpus
from paperbot.bench.digest_votes import with_votes
from paperbot.bench.memory import peak_rss_mb
from paperbot.bench.synthetic import VENUES, synthetic_papers
from paperbot.core.digest import (
    MMR_LAMBDA,
    TOPIC_DECAY,
    VENUE_DECAY,
    CorpusArrays,
    PreparedDemand,
    TopicDemand,
    pick,
)
from paperbot.core.digest_fill import fill_reason, match_reason
from paperbot.core.similarity import PaperVectors


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--papers", type=positive_int, default=100_000, help="corpus size")
    parser.add_argument("--subscribers", type=positive_int, default=1_000, help="subscribers")
    parser.add_argument("--topics", type=positive_int, default=120, help="topic vocabulary size")
    parser.add_argument("--count", type=positive_int, default=10, help="picks per post")
    parser.add_argument(
        "--posted",
        type=non_negative_int,
        default=None,
        help=f"already posted (default: {POSTED_SHARE * 100:.0f}%% of --papers)",
    )
    parser.add_argument("--repeat", type=positive_int, default=5, help="timed runs (best kept)")
    parser.add_argument(
        "--votes",
        type=non_negative_int,
        default=50,
        help="👍/👎 per subscriber for the pick with votes (0: skip it)",
    )
    parser.add_argument(
        "--servers",
        type=positive_int,
        default=200,
        help="servers posting their day through the database (posts_* figures)",
    )
    add_backend_arguments(parser)


#: Share of the corpus already posted when --posted is not given.
POSTED_SHARE = 0.2


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    return 0 if text.strip() == "0" else positive_int(text)


def _posted_count(args: argparse.Namespace) -> int:
    """--posted, or a share of the corpus; refuse one that leaves nothing to pick."""
    posted: int = args.posted if args.posted is not None else int(args.papers * POSTED_SHARE)
    if posted >= args.papers:
        raise BenchmarkRefused(
            f"--posted {posted} marks every one of the {args.papers} papers as posted: "
            "both pickers would return nothing, so there is nothing to compare"
        )
    return posted


async def run(args: argparse.Namespace) -> dict[str, Any]:
    rows, demands, posted = synthetic_server(
        args.papers, args.subscribers, args.topics, _posted_count(args), seed=11
    )
    texts = synthetic_texts(rows, seed=11)
    start = time.perf_counter()
    corpus = CorpusArrays.build(rows, texts)
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
    vectors = sparse_vectors(corpus)
    start = time.perf_counter()
    baseline = naive_pick(rows, demands, posted, args.count, vectors)
    baseline_s = time.perf_counter() - start
    ours = [(p.paper_id, p.reason) for p in plan.picks]
    if not ours:
        raise BenchmarkRefused("the pick is empty: there is nothing to compare")
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
        "pick_ms_per_pick": best * 1000 / max(1, len(plan.picks)),
        "fill_picks": sum(1 for p in plan.picks if p.kind == "fill"),
        "baseline_ms": baseline_s * 1000,
        "pick_vs_baseline": best / baseline_s,
        "same_picks_as_baseline": ours == baseline,
        "within_200ms": best <= 0.2,  # the whole post, so every pick is well inside
        **(with_votes(corpus, demands, posted, args, best) if args.votes else {}),
        **await _database_side(args),
        "peak_rss_mb": peak_rss_mb(),
    }


async def _database_side(args: argparse.Namespace) -> dict[str, Any]:
    """`posts_*`: the servers' posts through the database, on the backend(s) asked for."""
    with tempfile.TemporaryDirectory() as tmp:
        corpus = write_posts_corpus(Path(tmp) / "corpus")

        async def measure(target: str | Path) -> dict[str, Any]:
            return await measure_posts(target, corpus, args.servers)

        return await on_backends(args, Path(tmp) / "posts.sqlite3", measure)


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


def synthetic_texts(rows: Sequence[tuple[int, str, int]], seed: int) -> dict[int, str]:
    """Title and summary per paper, recombined from the real pages."""
    made = synthetic_papers(len(rows), seed=seed)
    return {row[0]: f"{title}\n{summary}" for row, (title, summary) in zip(rows, made, strict=True)}


def sparse_vectors(corpus: CorpusArrays) -> dict[int, dict[int, float]]:
    """The corpus's paper vectors as plain dictionaries, by paper id."""
    vectors: PaperVectors = corpus.vectors
    return {
        int(pid): {
            int(t): float(w)
            for t, w in zip(vectors.terms[row], vectors.weights[row], strict=True)
            if t >= 0
        }
        for row, pid in enumerate(corpus.ids)
    }


def naive_pick(
    rows: Sequence[tuple[int, str, int]],
    demands: Sequence[TopicDemand],
    posted: Sequence[int],
    count: int,
    vectors: dict[int, dict[int, float]] | None = None,
) -> list[tuple[int, str]]:
    """The same ranking, computed the obvious way: per paper, per subscriber,
    every score recomputed for every pick."""
    done = set(posted)
    info = {pid: (venue, year) for pid, venue, year in rows}
    live = [d for d in demands if d.subscribers and len(d.ids)]
    audience = len({u for d in live for u in d.subscribers})
    weight = [float(len(set(d.subscribers))) for d in live]
    hits: dict[int, dict[int, float]] = {}
    for row, demand in enumerate(live):
        for pid, raw in zip(demand.ids.tolist(), demand.scores.tolist(), strict=True):
            score = min(max(raw, 0.0), 1.0)
            if pid not in done and pid in info and score > 0:
                hits.setdefault(pid, {})[row] = score
    picks: list[tuple[int, str]] = []
    topic_picks = [0] * len(live)
    venue_picks: dict[str, int] = {}
    closest = dict.fromkeys(hits, 0.0)  # each candidate's largest similarity to a pick
    while len(picks) < count and len(picks) < len(hits):
        pid = _naive_next(hits, info, weight, topic_picks, venue_picks, closest, picks)
        order = sorted(hits[pid], key=lambda r: (-hits[pid][r] * weight[r], r))
        users = {u for r in order for u in live[r].subscribers}
        picks.append((pid, match_reason([live[r].topic for r in order], len(users), audience)))
        for r in order:
            topic_picks[r] += 1
        venue_picks[info[pid][0]] = venue_picks.get(info[pid][0], 0) + 1
        for other in closest:
            closest[other] = max(closest[other], _cosine(vectors, pid, other))
    taken = {pid for pid, _ in picks}
    return picks + _naive_fill(rows, done | taken, count - len(picks), fill_reason(audience))


def _naive_next(
    hits: dict[int, dict[int, float]],
    info: dict[int, tuple[str, int]],
    weight: list[float],
    topic_picks: list[int],
    venue_picks: dict[str, int],
    closest: dict[int, float],
    picks: list[tuple[int, str]],
) -> int:
    taken = {pid for pid, _ in picks}
    effective = {
        pid: sum(found[r] * (weight[r] * TOPIC_DECAY ** topic_picks[r]) for r in sorted(found))
        * VENUE_DECAY ** venue_picks.get(info[pid][0], 0)
        for pid, found in hits.items()
        if pid not in taken
    }
    best = max(effective.values())

    def mmr(pid: int) -> float:
        return MMR_LAMBDA * effective[pid] / best - (1.0 - MMR_LAMBDA) * closest[pid]

    return max(effective, key=lambda pid: (mmr(pid), -pid))


def _cosine(vectors: dict[int, dict[int, float]] | None, a: int, b: int) -> float:
    if vectors is None:
        return 0.0
    first, second = vectors.get(a, {}), vectors.get(b, {})
    return min(1.0, sum(w * second[t] for t, w in first.items() if t in second))


def _naive_fill(
    rows: Sequence[tuple[int, str, int]], blocked: set[int], need: int, reason: str
) -> list[tuple[int, str]]:
    """Newest year first, its venues dealt in turns (lower id first)."""
    fill = sorted((r for r in rows if r[0] not in blocked), key=lambda r: (-r[2], r[0]))
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
    return [(pid, reason) for *_, pid in dealt[: max(0, need)]]
