"""`paperbot topics`: how the topic vocabulary covers the loaded papers, and
`paperbot topics match TOPIC`: the papers the digest counts as matching one
topic or keyword, with why."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from paperbot.argtypes import positive_int
from paperbot.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, fail, print_json, with_app
from paperbot.config import Settings
from paperbot.core.models import Paper
from paperbot.core.topics import Coverage, Topic, TopicInputError
from paperbot.services.app import App

UNMATCHED_SHOWN = 20
MATCHES_SHOWN = 20


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "topics", help="every topic with how many loaded papers it matches"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)
    actions = parser.add_subparsers(dest="action", required=False, metavar="ACTION")
    match = actions.add_parser(
        "match",
        help="the papers a topic or keyword matches, best first, with why",
        description=(
            "The papers the digest counts as matching TOPIC (a vocabulary topic or a free"
            " keyword, as /subscribe takes it), best first, with score and reasons."
        ),
    )
    match.add_argument("topic", help='a topic, alias or keyword, e.g. "scaling laws" or 低秩')
    match.add_argument(
        "--limit",
        type=positive_int,
        default=MATCHES_SHOWN,
        help=f"matches to show (default {MATCHES_SHOWN})",
    )
    match.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: the topic, the match count and {id, title, score, reasons}",
    )
    match.set_defaults(handler=run_match)


def run(args: argparse.Namespace, settings: Settings) -> int:
    async def job(app: App) -> int:
        report = await app.topics.coverage()
        if args.json:
            print_json(coverage_json(report))
            return EXIT_OK
        titles = {p.id: p.title for p in await app.corpus.get_papers(report.unmatched_ids)}
        width = max((len(t.key) for t, _ in report.counts), default=0)
        for topic, count in report.counts:
            print(f"{count:>6}  {topic.key:<{width}}  {topic.name} · {topic.zh}")
        matched = report.papers - len(report.unmatched_ids)
        print(
            f"{len(report.counts)} topics; {matched} of {report.papers} papers match a topic"
            f" ({report.covered_share:.1%}); {len(report.unmatched_ids)} match none"
        )
        for paper_id in report.unmatched_ids[:UNMATCHED_SHOWN]:
            print(f"  no topic: {paper_id:>6}  {titles.get(paper_id, '?')}")
        if len(report.unmatched_ids) > UNMATCHED_SHOWN:
            print(f"  … and {len(report.unmatched_ids) - UNMATCHED_SHOWN} more (see --json)")
        return EXIT_OK

    return with_app(settings, job)


def coverage_json(report: Coverage) -> dict[str, Any]:
    return {
        "papers": report.papers,
        "covered": round(report.covered_share, 4),
        "topics": [
            {"id": t.key, "name": t.name, "zh": t.zh, "papers": n} for t, n in report.counts
        ],
        "unmatched": list(report.unmatched_ids),
    }


def run_match(args: argparse.Namespace, settings: Settings) -> int:
    async def job(app: App) -> int:
        try:
            topic = app.topics.resolve(args.topic)
        except TopicInputError as exc:
            return fail(str(exc), EXIT_USAGE)
        # The digest's own call: the same (ids, scores) it picks from.
        found = await app.topics.matches(topic)
        shown = await app.corpus.get_papers([int(i) for i in found.ids[: args.limit]])
        scores = {int(i): float(s) for i, s in zip(found.ids, found.scores, strict=True)}
        rows = [_match_json(app, topic, paper, scores[paper.id]) for paper in shown]
        close, instead = (
            await app.subscriptions.alternatives(topic, args.topic) if not len(found) else ((), ())
        )
        if args.json:
            matched = {"matches": len(found), "papers": rows}
            offers = {"close_to": [t.key for t in close], "instead": [t.key for t in instead]}
            print_json({**_topic_json(topic), **matched, **offers})
        else:
            _print_matches(topic, rows, len(found))
        if not len(found):
            loaded = await app.corpus.paper_count()
            problem = _no_match(topic, close, instead) if loaded else "no papers loaded"
            return fail(problem, EXIT_PROBLEMS)
        return EXIT_OK

    return with_app(settings, job)


def _no_match(topic: Topic, close: Sequence[Topic], instead: Sequence[Topic]) -> str:
    """No paper matches; the topics the digest offers meanwhile as close, and
    the others `/subscribe` offers to follow in its place."""
    line = f"no paper matches {topic.label}"
    if close:
        line += "; the digest offers papers on " + ", ".join(t.label for t in close)
        line += " as close to it"
    others = [t.label for t in instead if t not in close]
    if others:
        line += "; did you mean " + " or ".join(others) + "?"
    return line


def _topic_json(topic: Topic) -> dict[str, Any]:
    return {"kind": topic.kind, "key": topic.key, "name": topic.name, "zh": topic.zh}


def _match_json(app: App, topic: Topic, paper: Paper, score: float) -> dict[str, Any]:
    return {
        "id": paper.id,
        "title": paper.title,
        "score": round(score, 4),
        "reasons": list(app.topics.explain(topic, paper, matched=True)),
    }


def _print_matches(topic: Topic, rows: list[dict[str, Any]], total: int) -> None:
    print(f"{topic.label} [{topic.kind} {topic.key}]")
    for row in rows:
        print(f"{row['score']:6.3f}  {row['id']:>6}  {row['title']}")
        if row["reasons"]:
            print(f"{'':16}{'; '.join(row['reasons'])}")
    more = f" (showing {len(rows)})" if total > len(rows) else ""
    print(f"{total} papers match{more}")
