"""Recommendation and search quality against the judged relevance data.

The shipped corpus is loaded into a temporary database through the configured
App (its vocabulary), and every judged topic and query (paperbot/data/judged,
issue 10) goes through the bot's own code paths:

- picks: `digest preview --topics TOPIC --count k` for one reader following
  only that topic (`reader_demands` + `DigestService.preview`), k = 5 and 10;
  pick precision at k = relevant picks / min(k, relevant papers), and the
  share of picks that are fill (not among the topic's matches);
- matches: `TopicService.matches` (what the digest and `topics match` use),
  precision and recall against the judged relevant set;
- search: `SearchService.search`, the first expected paper in the top 10:
  hits@5 and MRR (0 when not in the top 10), per query kind.

Naive baselines in the same run: for topics, a plain substring match of the
topic's English and Chinese names (a keyword: itself) in the lower-cased
title + summary, picks = those matches newest first, then the newest other
papers; for search, arxiv-sanity-lite's keyword scan. Topic figures are
macro-averaged over topics; search figures are means over queries.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

from paperbot.bench.agreement import agreement_row, agreement_summary
from paperbot.bench.baselines import BaselineCorpus, baseline_rank
from paperbot.bench.judged import (
    HELD_OUT_QUERIES_FILE,
    HELD_OUT_TOPICS_FILE,
    SECOND_TOPICS_FILE,
    JudgedDataError,
    JudgedQuery,
    JudgedTopic,
    load_judged_queries,
    load_judged_topics,
)
from paperbot.bench.metrics import (
    BaselinePaper,
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
from paperbot.bench.quality_report import (
    QUERY_SETS,
    SEARCH_METRICS,
    TOPIC_METRICS,
    TOPIC_SETS,
    Pair,
    render,
)
from paperbot.bench.shipped import shipped_corpus_app
from paperbot.clock import utc_now
from paperbot.config import ConfigError
from paperbot.services.app import App
from paperbot.services.digest import reader_demands

# `render` is what `paperbot bench quality` prints; the names tests read.
__all__ = [
    "QUERY_SETS",
    "SEARCH_METRICS",
    "TOPIC_METRICS",
    "TOPIC_SETS",
    "add_arguments",
    "render",
    "run",
]

PICK_COUNTS = (5, 10)
RANK_DEPTH = 10
HITS_AT = 5
# `digest preview` without --guild previews for server 0 (none configured).
PREVIEW_GUILD = 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options: the corpus and the judged data are the shipped ones."""


async def run(_args: argparse.Namespace) -> dict[str, Any]:
    try:
        topics = load_judged_topics()
        queries = load_judged_queries()
        held_topics = load_judged_topics(HELD_OUT_TOPICS_FILE)
        held_queries = load_judged_queries(HELD_OUT_QUERIES_FILE)
        topic_sets = {key: load_judged_topics(path) for key, path, _ in TOPIC_SETS}
        query_sets = {key: load_judged_queries(path) for key, path, _ in QUERY_SETS}
        second = _second_reading(topics, load_judged_topics(SECOND_TOPICS_FILE))
    except JudgedDataError as exc:
        raise ConfigError(f"judged data: {exc}") from None
    async with shipped_corpus_app("quality", utc_now()) as app:
        papers = await app.corpus.list_papers()
        ids = {p.title: p.id for p in papers}
        naive = [baseline_paper(p.id, p.year, p.title, p.summary) for p in papers]
        search_naive = BaselineCorpus(
            tuple(p.id for p in papers),
            tuple(p.title.lower() for p in papers),
            tuple(p.summary.lower() for p in papers),
        )
        topic_rows = [await _topic_row(app, t, ids, naive) for t in topics]
        query_rows = [await _query_row(app, q, ids, search_naive) for q in queries]
        held_topic_rows = [await _topic_row(app, t, ids, naive) for t in held_topics]
        held_query_rows = [await _query_row(app, q, ids, search_naive) for q in held_queries]
        set_rows = {
            key: [await _topic_row(app, t, ids, naive) for t in judged]
            for key, judged in topic_sets.items()
        }
        query_set_rows = {
            key: [await _query_row(app, q, ids, search_naive) for q in judged]
            for key, judged in query_sets.items()
        }
        second_rows = [
            await _second_row(app, first, again, ids, naive, len(papers)) for first, again in second
        ]
    return {
        "papers": len(papers),
        "rank_depth": RANK_DEPTH,
        # The tuned set at the top level (what earlier reports showed) ...
        **_set_report(topic_rows, query_rows),
        # ... and the held-out set beside it: the check that tuning generalises.
        "held_out": _set_report(held_topic_rows, held_query_rows),
        # Keywords as users type them, and more vocabulary topics: topics only.
        **{key: _topics_report(rows) for key, rows in set_rows.items()},
        # Questions of one more style, tuned and held out: search only.
        **{
            key: {"judged_queries": len(rows), "search": _search_summary(rows)}
            for key, rows in query_set_rows.items()
        },
        # The tuned topics judged again by a second reader: the readers'
        # agreement, and the bot against the second reader.
        "second_reader": agreement_summary(second_rows),
    }


def _topics_report(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {"judged_topics": len(rows), "topics": _topic_summary(rows)}


def _set_report(
    topic_rows: Sequence[dict[str, Any]], query_rows: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "judged_topics": len(topic_rows),
        "judged_queries": len(query_rows),
        "topics": _topic_summary(topic_rows),
        "search": _search_summary(query_rows),
    }


# --- topics -------------------------------------------------------------------


async def _topic_row(
    app: App, judged: JudgedTopic, ids: Mapping[str, int], naive: Sequence[BaselinePaper]
) -> dict[str, Any]:
    relevant = {ids[title] for title in judged.titles}
    topic = app.topics.resolve(judged.query)
    matched, naive_matched = await _matched(app, judged, naive)
    picks = {k: await _bot_picks(app, judged.query, k) for k in PICK_COUNTS}
    naive_picks = {k: baseline_picks(naive_matched, naive, k) for k in PICK_COUNTS}
    bot = _topic_metrics(relevant, matched, picks)
    base = _topic_metrics(relevant, naive_matched, naive_picks)
    return {
        "query": judged.query,
        "kind": judged.kind,
        "id": judged.id,
        # What the bot reads the text as (a keyword may be a vocabulary alias).
        "resolved": f"{topic.kind}:{topic.key}",
        "relevant": len(relevant),
        "matches": {"bot": len(matched), "baseline": len(naive_matched)},
        **{name: {"bot": bot[name], "baseline": base[name]} for name in TOPIC_METRICS},
    }


async def _matched(
    app: App, judged: JudgedTopic, naive: Sequence[BaselinePaper]
) -> tuple[list[int], list[int]]:
    """The papers the bot (`TopicService.matches`) and the baseline match."""
    topic = app.topics.resolve(judged.query)
    matched = [int(i) for i in (await app.topics.matches(topic)).ids]
    return matched, baseline_matches(naive, _baseline_names(app, judged))


async def _bot_picks(app: App, text: str, count: int) -> list[int]:
    """What `paperbot digest preview --topics TEXT --count COUNT` picks."""
    demands = await reader_demands(app.subscriptions, [text])
    preview = await app.digest.preview(PREVIEW_GUILD, utc_now(), count=count, demands=demands)
    return [pick.paper_id for pick in preview.plan.picks]


def _baseline_names(app: App, judged: JudgedTopic) -> tuple[str, ...]:
    """A vocabulary topic's English and Chinese names; a keyword itself."""
    if judged.id is None:
        return (judged.query,)
    topic = app.topics.vocabulary.get(judged.id)
    if topic is None:
        raise ConfigError(f"judged data: topic id {judged.id!r} is not in the vocabulary")
    return (topic.name, topic.zh)


def _topic_metrics(
    relevant: set[int], matched: Sequence[int], picks: Mapping[int, Sequence[int]]
) -> dict[str, float]:
    metrics = {}
    for k, chosen in picks.items():
        metrics[f"pick_precision_at_{k}"] = pick_precision(chosen, relevant, k)
        metrics[f"fill_share_at_{k}"] = fill_share(chosen, matched)
    metrics["match_precision"] = set_precision(matched, relevant)
    metrics["match_recall"] = set_recall(matched, relevant)
    return metrics


def _topic_summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    kinds = sorted({row["kind"] for row in rows})
    return {
        "overall": _macro(rows, TOPIC_METRICS),
        "by_kind": {
            kind: _macro([r for r in rows if r["kind"] == kind], TOPIC_METRICS) for kind in kinds
        },
        "per_topic": list(rows),
    }


# --- a second reader ----------------------------------------------------------


def _second_reading(
    first: Sequence[JudgedTopic], second: Sequence[JudgedTopic]
) -> list[tuple[JudgedTopic, JudgedTopic]]:
    """Each topic the second reader judged, beside the first reading of it."""
    by_query = {t.query: t for t in first}
    missing = [t.query for t in second if t.query not in by_query]
    if missing:
        raise JudgedDataError(f"second reading of topics never judged first: {missing}")
    return [(by_query[t.query], t) for t in second]


async def _second_row(
    app: App,
    first: JudgedTopic,
    second: JudgedTopic,
    ids: Mapping[str, int],
    naive: Sequence[BaselinePaper],
    papers: int,
) -> dict[str, Any]:
    matched, naive_matched = await _matched(app, first, naive)
    return agreement_row(
        first.query,
        {ids[title] for title in first.titles},
        {ids[title] for title in second.titles},
        {"bot": matched, "baseline": naive_matched},
        papers,
    )


# --- search -------------------------------------------------------------------


async def _query_row(
    app: App, judged: JudgedQuery, ids: Mapping[str, int], naive: BaselineCorpus
) -> dict[str, Any]:
    expected = {ids[title] for title in judged.expected}
    result = await app.search.search(judged.query, limit=RANK_DEPTH)
    bot_rank = first_hit_rank([hit.paper.id for hit in result.hits], expected)
    naive_ids, _ = baseline_rank(naive, judged.query, limit=RANK_DEPTH)
    naive_rank = first_hit_rank(naive_ids, expected)
    return {
        "query": judged.query,
        "kind": judged.kind,
        "rank": {"bot": bot_rank, "baseline": naive_rank},
        "hits_at_5": {"bot": hit_at(bot_rank, HITS_AT), "baseline": hit_at(naive_rank, HITS_AT)},
        "mrr": {"bot": reciprocal_rank(bot_rank), "baseline": reciprocal_rank(naive_rank)},
    }


def _search_summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    kinds = sorted({row["kind"] for row in rows})
    by_kind = {}
    for kind in kinds:
        of_kind = [r for r in rows if r["kind"] == kind]
        by_kind[kind] = {"queries": len(of_kind), **_macro(of_kind, SEARCH_METRICS)}
    return {
        "overall": {"queries": len(rows), **_macro(rows, SEARCH_METRICS)},
        "by_kind": by_kind,
        "per_query": list(rows),
    }


def _macro(rows: Sequence[Mapping[str, Any]], names: Sequence[str]) -> dict[str, Pair]:
    """The mean of each metric over the rows, bot and baseline side by side."""
    return {
        name: {side: mean(row[name][side] for row in rows) for side in ("bot", "baseline")}
        for name in names
    }
