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
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from paperbot.bench.baselines import BaselineCorpus, baseline_rank
from paperbot.bench.judged import (
    EXTRA_TOPICS_FILE,
    HELD_OUT_EXTRA_TOPICS_FILE,
    HELD_OUT_KEYWORD_TOPICS_FILE,
    HELD_OUT_QUERIES_FILE,
    HELD_OUT_TOPICS_FILE,
    KEYWORD_TOPICS_FILE,
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
from paperbot.bench.shipped import shipped_corpus_app
from paperbot.clock import utc_now
from paperbot.config import ConfigError
from paperbot.services.app import App
from paperbot.services.digest import reader_demands

# The judged sets of topics only, reported apart from the tuned and held-out
# sets (which have queries too): report key, file, heading.
TOPIC_SETS = (
    (
        "keywords",
        KEYWORD_TOPICS_FILE,
        "keywords as typed (acronyms, expansions, Chinese aliases; tuned)",
    ),
    # More of them, held out from the changes the keywords above chose.
    (
        "held_out_keywords",
        HELD_OUT_KEYWORD_TOPICS_FILE,
        "held-out keywords as typed (never tuned against)",
    ),
    ("extra_topics", EXTRA_TOPICS_FILE, "more vocabulary topics (2026-12-04; tuned)"),
    (
        "held_out_extra_topics",
        HELD_OUT_EXTRA_TOPICS_FILE,
        "more vocabulary topics (2026-12-04; never tuned against)",
    ),
)
PICK_COUNTS = (5, 10)
RANK_DEPTH = 10
HITS_AT = 5
TOPIC_METRICS = (
    "pick_precision_at_5",
    "pick_precision_at_10",
    "fill_share_at_5",
    "fill_share_at_10",
    "match_precision",
    "match_recall",
)
SEARCH_METRICS = ("hits_at_5", "mrr")
# `digest preview` without --guild previews for server 0 (none configured).
PREVIEW_GUILD = 0

Pair = dict[str, float]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options: the corpus and the judged data are the shipped ones."""


async def run(_args: argparse.Namespace) -> dict[str, Any]:
    try:
        topics = load_judged_topics()
        queries = load_judged_queries()
        held_topics = load_judged_topics(HELD_OUT_TOPICS_FILE)
        held_queries = load_judged_queries(HELD_OUT_QUERIES_FILE)
        topic_sets = {key: load_judged_topics(path) for key, path, _ in TOPIC_SETS}
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
    return {
        "papers": len(papers),
        "rank_depth": RANK_DEPTH,
        # The tuned set at the top level (what earlier reports showed) ...
        **_set_report(topic_rows, query_rows),
        # ... and the held-out set beside it: the check that tuning generalises.
        "held_out": _set_report(held_topic_rows, held_query_rows),
        # Keywords as users type them, and more vocabulary topics: topics only.
        **{key: _topics_report(rows) for key, rows in set_rows.items()},
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
    matched = [int(i) for i in (await app.topics.matches(topic)).ids]
    picks = {k: await _bot_picks(app, judged.query, k) for k in PICK_COUNTS}
    naive_matched = baseline_matches(naive, _baseline_names(app, judged))
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


# --- the table ----------------------------------------------------------------

_SHORT = {
    "pick_precision_at_5": "P@5",
    "pick_precision_at_10": "P@10",
    "fill_share_at_5": "fill@5",
    "fill_share_at_10": "fill@10",
    "match_precision": "match P",
    "match_recall": "match R",
    "hits_at_5": "hits@5",
    "mrr": "MRR",
}


def render(result: Mapping[str, Any]) -> str:
    """The human-readable report: bot / baseline per metric, the tuned set
    first, then the held-out set, then the sets of topics only
    (`TOPIC_SETS`)."""
    held = result["held_out"]
    lines = [
        f"{result['papers']} papers; each cell is bot / baseline",
        "",
        f"== tuned set: {result['judged_topics']} judged topics,"
        f" {result['judged_queries']} judged queries",
        _render_set(result),
        "",
        f"== held-out set (never tuned against): {held['judged_topics']} judged topics,"
        f" {held['judged_queries']} judged queries",
        _render_set(held),
    ]
    for key, _, heading in TOPIC_SETS:
        lines += [
            "",
            f"== {heading}: {result[key]['judged_topics']} judged topics",
            _render_topics(result[key]["topics"]),
        ]
    return "\n".join(lines)


def _render_set(result: Mapping[str, Any]) -> str:
    topics, search = result["topics"], result["search"]
    lines = [_render_topics(topics, notes=False)]
    lines += ["", _row("search", ["queries", *(_SHORT[m] for m in SEARCH_METRICS)], width=22)]
    for kind, figures in [*search["by_kind"].items(), ("all queries", search["overall"])]:
        cells = [str(figures["queries"]), *(_cell(figures[m]) for m in SEARCH_METRICS)]
        lines.append(_row(kind, cells, width=22))
    lines += _resolution_notes(topics["per_topic"])
    return "\n".join(lines)


def _render_topics(topics: Mapping[str, Any], *, notes: bool = True) -> str:
    lines = [_row("topics", [_SHORT[m] for m in TOPIC_METRICS], width=34)]
    for row in topics["per_topic"]:
        label = f"{row['query'][:24]} ({row['relevant']})"
        lines.append(_row(label, [_cell(row[m]) for m in TOPIC_METRICS], width=34))
    for kind, figures in topics["by_kind"].items():
        lines.append(_row(f"mean: {kind}", [_cell(figures[m]) for m in TOPIC_METRICS], width=34))
    overall = topics["overall"]
    lines.append(_row("mean: all topics", [_cell(overall[m]) for m in TOPIC_METRICS], width=34))
    if notes:
        lines += _resolution_notes(topics["per_topic"])
    return "\n".join(lines)


def _resolution_notes(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Judged topics the bot reads differently than the judges named them."""
    notes = []
    for row in rows:
        judged = f"topic:{row['id']}" if row["id"] else f"keyword:{row['query']}"
        is_keyword = row["resolved"].startswith("keyword:")
        if row["resolved"] != judged and not (row["id"] is None and is_keyword):
            notes.append(f"note: {row['query']!r} ({row['kind']}) is read as {row['resolved']}")
    return ["", *notes] if notes else []


def _cell(pair: Pair) -> str:
    return f"{pair['bot']:.2f} / {pair['baseline']:.2f}"


def _row(label: str, cells: Sequence[str], *, width: int) -> str:
    # Chinese characters take two columns in a terminal.
    wide = sum(unicodedata.east_asian_width(ch) in "WF" for ch in label)
    return label + " " * max(1, width - len(label) - wide) + "".join(f"{c:>13}" for c in cells)
