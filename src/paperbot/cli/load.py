"""`paperbot load [PATH ...]`: load digest files into the database."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tqdm import tqdm

from paperbot.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, fail, print_json, with_app
from paperbot.clock import utc_now
from paperbot.config import Settings
from paperbot.services.app import App, Prepared
from paperbot.services.corpus import LoadReport, corpus_limits
from paperbot.services.corpus_files import CorpusPathError, corpus_files, is_url
from paperbot.services.memory import one_arena


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "load",
        help="load digest files, folders or http(s) URLs of pages or feeds "
        "(default: the configured corpus)",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH_OR_URL")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    parser.add_argument(
        "--allow-shrink",
        action="store_true",
        help="apply pages that became empty or lost more than half their papers "
        "(held back otherwise, exit 1)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    one_arena()  # before the database thread starts (`services.memory`)
    urls = [p for p in args.paths if is_url(p)]
    paths = [Path(p) for p in args.paths if not is_url(p)]
    if not args.paths:
        paths = [settings.corpus.path]
    try:
        total = len(corpus_files(paths))
    except CorpusPathError as exc:
        return fail(str(exc), EXIT_USAGE)

    async def job(app: App) -> int:
        fetched, failures = await _fetch(app, urls) if urls else ([], [])
        for failure in failures:
            print(f"cannot fetch {failure}", file=sys.stderr)
        if not paths and not fetched:
            return EXIT_PROBLEMS
        show_bar = sys.stderr.isatty() and not args.json
        with tqdm(total=total, unit="file", disable=not show_bar, file=sys.stderr) as bar:
            report = await app.corpus.load(
                [*paths, *fetched],
                default_area=settings.corpus.default_area,
                now=utc_now(),
                progress=lambda _path: bar.update(),
                allow_shrink=args.allow_shrink,
                limits=corpus_limits(settings.corpus),
                early_texts=True,
            )
        # Ready means ready: the bot started after this load answers at once
        # (the search index and the topic matches are stored).
        prepared = await app.prepare(keep_topics=False)
        print_json(report.as_dict()) if args.json else _print_summary(report, prepared)
        return EXIT_OK if report.clean and not failures else EXIT_PROBLEMS

    return with_app(settings, job)


async def _fetch(app: App, urls: list[str]) -> tuple[list[Path], list[str]]:
    # Imported only for URLs: the HTTP client costs ~0.1 s at every load.
    from paperbot.services.sources import fetch_sources

    return await fetch_sources(app, urls)


def _print_summary(report: LoadReport, prepared: Prepared) -> None:
    print(
        f"{report.files} files, {report.entries} entries: {report.new} new, "
        f"{report.updated} updated, {report.unchanged} unchanged, "
        f"{report.removed} removed, {report.duplicates_merged} duplicates merged"
    )
    print(
        f"search index {prepared.index_source}, topic matches {prepared.topics_source}:"
        f" {prepared.papers} papers, {prepared.seconds:.1f}s"
    )
    for note in report.notes:
        print(note)
    for problem in report.problems:
        print(f"{'warning' if problem.warning else 'skipped'} {problem}")
