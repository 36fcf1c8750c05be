"""`paperbot search QUERY`: the same search as /search, in the terminal."""

from __future__ import annotations

import argparse
from typing import Any

from paperbot.argtypes import positive_int
from paperbot.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    print_json,
    unknown_venue,
    unknown_year,
    with_app,
    year,
)
from paperbot.config import Settings
from paperbot.core.render import trim
from paperbot.core.search import QueryProblem
from paperbot.services.app import App
from paperbot.services.search import SearchHit, SearchResult

_PROBLEMS = {
    QueryProblem.EMPTY: "nothing to search for: give a title, a word or 中文关键词",
    QueryProblem.NO_TERMS: (
        "the query has no words to search for (only punctuation, symbols or emoji)"
    ),
    QueryProblem.ONLY_COMMON_WORDS: (
        "the query has only common words (the, of, 的 ...): add a title word, a keyword "
        "or 中文关键词"
    ),
    QueryProblem.UNSUPPORTED_SCRIPT: (
        "the query has no searchable words: only English and Chinese are indexed, "
        "not the script it is written in"
    ),
}


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "search", help="search the loaded papers (English, Chinese, typos, venue/year)"
    )
    parser.add_argument(
        "query", nargs="+", help="words to find; a venue and year in them act as filters"
    )
    parser.add_argument("--venue", help="only this venue, e.g. NeurIPS (any case)")
    parser.add_argument("--year", type=year, help="only this year, e.g. 2025")
    parser.add_argument(
        "--limit", type=positive_int, default=10, help="results to show (default 10)"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON array of {id, title, venue, year, score, summary, matched}",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    query = " ".join(args.query)

    async def job(app: App) -> int:
        result = await app.search.search(query, venue=args.venue, year=args.year, limit=args.limit)
        if args.json:
            print_json([hit_json(h) for h in result.hits])
        else:
            _print_filters(result, args)
            _print(result, settings.search.max_query_length)
        return EXIT_OK if result.hits else EXIT_PROBLEMS

    return with_app(settings, job)


def hit_json(hit: SearchHit) -> dict[str, Any]:
    paper = hit.paper
    return {
        "id": paper.id,
        "title": paper.title,
        "venue": paper.venue,
        "year": paper.year,
        "area": paper.area,
        "score": round(hit.score, 4),
        "summary": paper.summary,
        "matched": list(hit.matched),
    }


def _print_filters(result: SearchResult, args: argparse.Namespace) -> None:
    """Say which filters were read from the query text (a number in a title
    can look like a year), and when a year that found nothing was dropped."""
    if result.year_dropped is not None:
        print(f"no papers from {result.year_dropped} match; showing results from any year")
    parts = []
    if result.query.venue and not args.venue:
        parts.append(f"venue {result.query.venue}")
    if result.query.year and not args.year:
        parts.append(f"year {result.query.year}")
    if parts and result.problem is None:
        print(f"filter: {', '.join(parts)} (from the query)")


def _print(result: SearchResult, max_length: int) -> None:
    if result.problem is QueryProblem.TOO_LONG:
        print(f"query too long: keep it under {max_length} characters")
        return
    if result.problem is QueryProblem.UNKNOWN_VENUE:
        print(unknown_venue(result.query.venue or "", result.venues))
        return
    if result.problem is QueryProblem.UNKNOWN_YEAR:
        assert result.query.year is not None  # the problem of a year filter
        print(unknown_year(result.query.year, result.query.venue, result.years))
        return
    if result.problem is not None:
        print(_PROBLEMS[result.problem])
        return
    if not result.hits:
        print("nothing found")
        if result.suggestions:
            print("did you mean:")
            for title in result.suggestions:
                print(f"  {title}")
        return
    # The rank, not the score: a long question's order fuses the score with
    # a second opinion (`core.search` fusion), so scores need not fall down
    # the list; `--json` keeps them.
    for at, hit in enumerate(result.hits, start=1):
        paper = hit.paper
        print(f"{at:>5}.  {paper.id:>6}  {paper.venue} {paper.year}  {paper.title}")
        if paper.summary:
            print(f"{'':16}{trim(' '.join(paper.summary.split()), 110)}")
    shown = len(result.hits)
    more = f" (showing {shown})" if result.total > shown else ""
    print(f"{result.total} papers{more}")
