"""Simulated readers voting on their picks: precision with learning vs without.

Every reader follows one judged topic (`data/judged/topics.toml`) but is
really interested in a cluster: that topic's relevant papers and those of
the `--related` judged topics closest to it (by the cosine of their relevant
papers' centroids), a hidden interest the topic alone does not describe.
Each day a reader gets `--count` picks of their own digest (the bot's
picker, `DigestService.corpus_arrays` + `FeedbackService.personalization` +
`core.digest.pick`, papers already shown never again) and votes on each
with probability `VOTE_RATE`: 👍 if it is in the hidden interest, 👎 if not,
flipped with probability `NOISE` (votes stored through `FeedbackService.vote`).
The same readers with the same dice run without learning in the same run
(no personalization). Reported: precision of the picks on day 1, 3, 7 and
14 (mean over readers) for both and their ratio, and the two promises:
a paper a reader 👎'd, or one within `NEAR_DUPLICATE` cosine of it, is never
picked for them again (counted: must be 0).
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import numpy as np

from paperbot.argtypes import positive_int
from paperbot.bench.judged import JudgedTopic, load_judged_topics
from paperbot.bench.metrics import mean
from paperbot.bench.shipped import shipped_corpus_app
from paperbot.clock import utc_now
from paperbot.core.digest import CorpusArrays, PreparedDemand, TopicDemand, pick
from paperbot.core.profile import NEAR_DUPLICATE
from paperbot.services.app import App
from paperbot.services.digest import reader_demands

VOTE_RATE = 0.7
NOISE = 0.1
GUILD = 1
REPORT_DAYS = (1, 3, 7, 14)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--readers", type=positive_int, default=66, help="simulated readers")
    parser.add_argument("--days", type=positive_int, default=14, help="simulated days")
    parser.add_argument("--count", type=positive_int, default=5, help="picks per day")
    parser.add_argument(
        "--related", type=int, default=2, help="judged topics added to each hidden interest"
    )
    parser.add_argument("--seed", type=int, default=7)


@dataclass(slots=True)
class SimReader:
    user_id: int
    topic: JudgedTopic
    interest: frozenset[int]
    demands: list[TopicDemand]
    shown: list[int] = field(default_factory=list)
    disliked: list[int] = field(default_factory=list)
    precision: list[float] = field(default_factory=list)
    violations: int = 0


async def run(args: argparse.Namespace) -> dict[str, Any]:
    topics = load_judged_topics()
    now = utc_now()
    async with shipped_corpus_app("feedback", now) as app:
        ids = {p.title: p.id for p in await app.corpus.list_papers()}
        corpus = await app.digest.corpus_arrays()
        arms = {}
        for learning in (True, False):
            readers = await _readers(app, topics, ids, corpus, args)
            await _simulate(app, corpus, readers, args, learning=learning)
            arms[learning] = readers
    return _summary(arms[True], arms[False], args, len(corpus))


def _clusters(
    topics: Sequence[JudgedTopic], ids: dict[str, int], corpus: CorpusArrays, related: int
) -> list[frozenset[int]]:
    """Each topic's relevant papers plus those of its `related` nearest topics."""
    sets = [frozenset(ids[t] for t in topic.titles if t in ids) for topic in topics]
    centroids = []
    for found in sets:
        positions = corpus.positions(sorted(found))
        vector = np.zeros(int(np.max(corpus.vectors.terms)) + 1)
        for p in positions:
            real = corpus.vectors.terms[p] >= 0
            vector[corpus.vectors.terms[p][real]] += corpus.vectors.weights[p][real]
        centroids.append(vector / max(float(np.linalg.norm(vector)), 1e-12))
    matrix = np.array(centroids)
    closeness = matrix @ matrix.T
    np.fill_diagonal(closeness, -1.0)
    return [
        sets[i].union(*(sets[int(j)] for j in np.argsort(-closeness[i])[:related]))
        for i in range(len(sets))
    ]


async def _readers(
    app: App,
    topics: Sequence[JudgedTopic],
    ids: dict[str, int],
    corpus: CorpusArrays,
    args: argparse.Namespace,
) -> list[SimReader]:
    clusters = _clusters(topics, ids, corpus, max(0, args.related))
    readers = []
    for index in range(args.readers):
        topic = topics[index % len(topics)]
        user = 1000 + index
        demands = await reader_demands(app.subscriptions, [topic.query])
        own = [TopicDemand(d.topic, (user,), d.ids, d.scores) for d in demands]
        readers.append(SimReader(user, topic, clusters[index % len(topics)], own))
    return readers


async def _simulate(
    app: App,
    corpus: CorpusArrays,
    readers: list[SimReader],
    args: argparse.Namespace,
    *,
    learning: bool,
) -> None:
    now = utc_now()
    for day in range(args.days):
        for reader in readers:
            dice = random.Random(args.seed * 1_000_003 + reader.user_id * 101 + day)
            personal = (
                await app.feedback.personalization(GUILD, corpus, {reader.user_id}, reader.user_id)
                if learning
                else None
            )
            plan = pick(
                corpus,
                PreparedDemand.build(corpus, reader.demands),
                reader.shown,
                args.count,
                personal,
            )
            picked = [p.paper_id for p in plan.picks]
            _check(corpus, reader, picked)
            reader.shown.extend(picked)
            good = [pid in reader.interest for pid in picked]
            reader.precision.append(sum(good) / len(picked) if picked else 0.0)
            for pid, relevant in zip(picked, good, strict=True):
                if dice.random() >= VOTE_RATE:
                    continue
                liked = relevant if dice.random() >= NOISE else not relevant
                if learning:
                    when = now + timedelta(days=day)
                    await app.feedback.vote(GUILD, reader.user_id, pid, 1 if liked else -1, when)
                if not liked:
                    reader.disliked.append(pid)


def _check(corpus: CorpusArrays, reader: SimReader, picked: Sequence[int]) -> None:
    """Count picks that are a paper the reader 👎'd or a near-duplicate of one."""
    if not reader.disliked or not picked:
        return
    disliked = corpus.positions(reader.disliked)
    for position in corpus.positions(list(picked)):
        if np.max(corpus.vectors.similarity(disliked, [int(position)])) > NEAR_DUPLICATE:
            reader.violations += 1


def _precision_on(readers: Sequence[SimReader], day: int) -> float:
    return mean(r.precision[day - 1] for r in readers if len(r.precision) >= day)


def _precision_after(readers: Sequence[SimReader], day: int) -> float:
    """Mean precision from `day` on (the later days as a whole)."""
    return mean(p for r in readers for p in r.precision[day - 1 :])


def _summary(
    learning: Sequence[SimReader], plain: Sequence[SimReader], args: argparse.Namespace, papers: int
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "papers": papers,
        "readers": len(learning),
        "days": args.days,
        "picks_per_day": args.count,
        "vote_rate": VOTE_RATE,
        "noise": NOISE,
        "related_topics_in_interest": args.related,
        "mean_interest_size": mean(len(r.interest) for r in learning),
    }
    for day in REPORT_DAYS:
        if day > args.days:
            continue
        ours, base = _precision_on(learning, day), _precision_on(plain, day)
        result[f"precision_day_{day}_learning"] = ours
        result[f"precision_day_{day}_no_learning"] = base
        result[f"precision_day_{day}_ratio"] = ours / base if base else None
        after_ours, after_base = _precision_after(learning, day), _precision_after(plain, day)
        result[f"precision_from_day_{day}_learning"] = after_ours
        result[f"precision_from_day_{day}_no_learning"] = after_base
        result[f"precision_from_day_{day}_ratio"] = after_ours / after_base if after_base else None
    result["disliked_or_near_duplicate_repicked"] = sum(r.violations for r in learning)
    result["target_1_5x_at_day_7"] = (result.get("precision_from_day_7_ratio") or 0) >= 1.5
    return result
