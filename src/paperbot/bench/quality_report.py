"""What `paperbot bench quality` reports: the judged sets beside the tuned
and held-out ones, the metric names, and the human-readable table.

Kept apart from the measuring (`quality`) so each stays small.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from paperbot.bench.agreement import MATCHER_METRICS, READER_METRICS
from paperbot.bench.judged import (
    ADVICE_QUERIES_FILE,
    COLLOQUIAL_QUERIES_FILE,
    EXTRA_TOPICS_FILE,
    HELD_OUT_ADVICE_QUERIES_FILE,
    HELD_OUT_COLLOQUIAL_QUERIES_FILE,
    HELD_OUT_EXTRA_TOPICS_FILE,
    HELD_OUT_KEYWORD_TOPICS_FILE,
    KEYWORD_TOPICS_FILE,
)

__all__ = ["QUERY_SETS", "SEARCH_METRICS", "TOPIC_METRICS", "TOPIC_SETS", "Pair", "render"]

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

# The judged sets of queries only, likewise: report key, file, heading.
QUERY_SETS = (
    ("advice_queries", ADVICE_QUERIES_FILE, "advice questions in everyday words (tuned)"),
    (
        "held_out_advice_queries",
        HELD_OUT_ADVICE_QUERIES_FILE,
        "advice questions in everyday words (never tuned against)",
    ),
    ("colloquial_queries", COLLOQUIAL_QUERIES_FILE, "questions in everyday spoken Chinese (tuned)"),
    (
        "held_out_colloquial_queries",
        HELD_OUT_COLLOQUIAL_QUERIES_FILE,
        "questions in everyday spoken Chinese (never tuned against)",
    ),
)

TOPIC_METRICS = (
    "pick_precision_at_5",
    "pick_precision_at_10",
    "fill_share_at_5",
    "fill_share_at_10",
    "match_precision",
    "match_recall",
)
SEARCH_METRICS = ("hits_at_5", "mrr")
Pair = dict[str, float]


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
    (`TOPIC_SETS`) and of queries only (`QUERY_SETS`), then the tuned topics
    as a second reader judged them."""
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
    for key, _, heading in QUERY_SETS:
        search = result[key]["search"]
        lines += ["", f"== {heading}: {search['overall']['queries']} judged queries"]
        lines += _render_search(search)
    return "\n".join([*lines, "", *_render_second_reader(result["second_reader"])])


def _render_set(result: Mapping[str, Any]) -> str:
    topics = result["topics"]
    lines = [_render_topics(topics, notes=False), "", *_render_search(result["search"])]
    lines += _resolution_notes(topics["per_topic"])
    return "\n".join(lines)


def _render_search(search: Mapping[str, Any]) -> list[str]:
    lines = [_row("search", ["queries", *(_SHORT[m] for m in SEARCH_METRICS)], width=22)]
    for kind, figures in [*search["by_kind"].items(), ("all queries", search["overall"])]:
        cells = [str(figures["queries"]), *(_cell(figures[m]) for m in SEARCH_METRICS)]
        lines.append(_row(kind, cells, width=22))
    return lines


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


_READERS_SHORT = {"readers_precision": "P", "readers_recall": "R", "kappa": "kappa"}
_MATCHER_SHORT = {
    "second_precision": "2nd P",
    "second_recall": "2nd R",
    "agreed_precision": "agreed P",
    "agreed_recall": "agreed R",
}


def _render_second_reader(second: Mapping[str, Any]) -> list[str]:
    """Readers' agreement (first reading scored against the second), then the
    bot / baseline against the second reader and on the undisputed papers."""
    header = [*_READERS_SHORT.values(), *_MATCHER_SHORT.values()]
    lines = [
        f"== the tuned topics read again by a second reader, blind:"
        f" {second['judged_topics']} topics",
        "   readers: the first reading scored against the second; 2nd: against the"
        " second reader; agreed: on the papers both readers agree on",
        _row("topic (1st / 2nd relevant)", header, width=34),
    ]
    for row in [*second["per_topic"], {"query": "mean: all topics", **second["overall"]}]:
        relevant = row.get("relevant")
        label = row["query"][:24] + (
            f" ({relevant['first']}/{relevant['second']})" if relevant else ""
        )
        cells = [f"{row[m]:.2f}" for m in READER_METRICS]
        cells += [_cell(row[m]) for m in MATCHER_METRICS]
        lines.append(_row(label, cells, width=34))
    return lines


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
