"""`paperbot list`: the loaded papers."""

from __future__ import annotations

import argparse
from typing import Any

from paperbot.cli.common import EXIT_OK, fail, print_json, unknown_venue, with_app, year
from paperbot.config import Settings
from paperbot.core.models import Paper
from paperbot.core.search import canonical_venue
from paperbot.services.app import App


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser("list", help="list the loaded papers")
    parser.add_argument("--venue", help="only this venue, e.g. NeurIPS (any case)")
    parser.add_argument("--year", type=year, help="only this year, e.g. 2025")
    parser.add_argument("--json", action="store_true", help="print one JSON array")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    async def job(app: App) -> int:
        found = await app.corpus.list_papers(venue=args.venue, year=args.year)
        if not found and args.venue:
            known = sorted({v.venue for v in await app.corpus.venues()})
            if canonical_venue(args.venue, known) not in known:
                return fail(unknown_venue(args.venue, known))
        if args.json:
            print_json([paper_json(p) for p in found])
        else:
            for paper in found:
                print(f"{paper.id:>6}  {paper.venue} {paper.year}  {paper.title}")
            print(f"{len(found)} papers")
        return EXIT_OK

    return with_app(settings, job)


def paper_json(paper: Paper) -> dict[str, Any]:
    return {
        "id": paper.id,
        "title": paper.title,
        "venue": paper.venue,
        "year": paper.year,
        "area": paper.area,
        "summaries": list(paper.summaries),
        "sources": list(paper.sources),
    }
