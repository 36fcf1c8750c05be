"""`paperbot topics`: how the topic vocabulary covers the loaded papers."""

from __future__ import annotations

import argparse
from typing import Any

from paperbot.cli.common import EXIT_OK, print_json, with_app
from paperbot.config import Settings
from paperbot.core.topics import Coverage
from paperbot.services.app import App

UNMATCHED_SHOWN = 20


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "topics", help="every topic with how many loaded papers it matches"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


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
