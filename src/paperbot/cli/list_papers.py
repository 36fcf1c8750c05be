"""`paperbot list`: the loaded papers."""

from __future__ import annotations

import argparse
from typing import Any

from paperbot.cli.common import (
    EXIT_OK,
    fail,
    print_json,
    unknown_venue,
    unknown_year,
    with_app,
    year,
)
from paperbot.config import Settings
from paperbot.core.models import Paper, VenueCount
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
        if not found and (args.venue or args.year):
            problem = _why_none(args.venue, args.year, await app.corpus.venues())
            if problem:
                return fail(problem)
        if args.json:
            print_json([paper_json(p) for p in found])
        else:
            for paper in found:
                print(f"{paper.id:>6}  {paper.venue} {paper.year}  {paper.title}")
            print(f"{len(found)} papers")
        return EXIT_OK

    return with_app(settings, job)


def _why_none(venue: str | None, year: int | None, loaded: list[VenueCount]) -> str | None:
    """The line naming what is loaded when the filters select no paper: an
    unknown venue, or a year it (or the whole corpus) has none of."""
    venues = sorted({v.venue for v in loaded})
    name = canonical_venue(venue, venues) if venue else None
    if venue and name not in venues:
        return unknown_venue(venue, venues)
    if year is None:
        return None
    years = sorted({v.year for v in loaded if name is None or v.venue == name})
    return unknown_year(year, name, years)


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
