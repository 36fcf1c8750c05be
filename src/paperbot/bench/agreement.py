"""Two readers' judgments of the same topics: how far they agree, and the
bot against each.

Issue 10's targets are measured against one reader's judgment. A second
reader judged the tuned topics again by reading every paper, without seeing
the first judgment or anything the bot returns (`judged/second_topics.toml`).
That gives three figures per topic, each beside the naive baseline where it
is a matcher's:

- how far the readers agree: the first reader's relevant papers scored as if
  they were a matcher's, against the second reader's (precision, recall), and
  Cohen's kappa over every paper: the ceiling a matcher can be held to when
  careful readers differ;
- the bot's matches against the second reader;
- the bot's matches on the papers both readers agree on: a paper one reader
  calls relevant and the other not counts neither way.

Pure functions over paper ids, tested table-driven.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from paperbot.bench.metrics import mean, set_precision, set_recall

__all__ = ["AGREEMENT_METRICS", "agreement_row", "agreement_summary", "cohen_kappa"]

# Per topic: the readers' agreement (no bot / baseline sides) ...
READER_METRICS = ("readers_precision", "readers_recall", "kappa")
# ... and the matchers' figures (bot / baseline).
MATCHER_METRICS = (
    "second_precision",
    "second_recall",
    "agreed_precision",
    "agreed_recall",
)
AGREEMENT_METRICS = READER_METRICS + MATCHER_METRICS


def cohen_kappa(first: Collection[int], second: Collection[int], papers: int) -> float:
    """Cohen's kappa of two relevant / not-relevant judgments over `papers`
    papers: 1.0 for identical judgments, 0.0 for agreement no better than
    chance. 1.0 when both judge every paper alike by chance alone (all
    relevant or none), where kappa is otherwise undefined."""
    if papers < 1:
        raise ValueError(f"papers must be at least 1 (got {papers})")
    a, b = set(first), set(second)
    both = len(a & b)
    neither = papers - len(a | b)
    observed = (both + neither) / papers
    share_a, share_b = len(a) / papers, len(b) / papers
    chance = share_a * share_b + (1 - share_a) * (1 - share_b)
    if chance >= 1.0:
        return 1.0
    return (observed - chance) / (1 - chance)


def agreement_row(
    query: str,
    first: Collection[int],
    second: Collection[int],
    matchers: Mapping[str, Collection[int]],
    papers: int,
) -> dict[str, Any]:
    """One topic's figures; `matchers` maps "bot" and "baseline" to the
    papers each matches."""
    disputed = set(first) ^ set(second)
    agreed = set(first) & set(second)
    row: dict[str, Any] = {
        "query": query,
        "relevant": {"first": len(set(first)), "second": len(set(second))},
        "disputed": len(disputed),
        "readers_precision": set_precision(first, second),
        "readers_recall": set_recall(first, second),
        "kappa": cohen_kappa(first, second, papers),
    }
    for side, found in matchers.items():
        undisputed = set(found) - disputed
        figures = {
            "second_precision": set_precision(found, second),
            "second_recall": set_recall(found, second),
            "agreed_precision": set_precision(undisputed, agreed),
            "agreed_recall": set_recall(undisputed, agreed),
        }
        for name, value in figures.items():
            row.setdefault(name, {})[side] = value
    return row


def agreement_summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Macro means over topics, like the rest of `bench quality`."""
    overall: dict[str, Any] = {name: mean(r[name] for r in rows) for name in READER_METRICS}
    for name in MATCHER_METRICS:
        sides = rows[0][name].keys() if rows else ()
        overall[name] = {side: mean(r[name][side] for r in rows) for side in sides}
    return {"judged_topics": len(rows), "overall": overall, "per_topic": list(rows)}
