"""`paperbot doctor [--json]`: check the database (exit 0 healthy, 1 problems, 2 cannot open)."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from paperbot.cli.common import (
    EXIT_CANNOT_OPEN,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    fail,
    print_json,
)
from paperbot.config import Settings
from paperbot.services.app import StorageError
from paperbot.services.doctor import DoctorReport, diagnose


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "doctor",
        help="check the database: integrity, schema version, search index, orphan rows",
    )
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    if settings.database.url is not None:
        return fail(
            "paperbot doctor checks SQLite files; PostgreSQL checks its own pages "
            "(use pg_amcheck, and pg_dump for backups)",
            EXIT_USAGE,
        )
    try:
        report = asyncio.run(diagnose(settings.database.path))
    except StorageError as exc:
        return fail(str(exc), EXIT_CANNOT_OPEN)
    print_json(report.as_dict()) if args.json else _print_report(report)
    return EXIT_OK if report.healthy else EXIT_PROBLEMS


def _print_report(report: DoctorReport) -> None:
    state = "healthy" if report.healthy else f"{len(report.problems)} problems"
    print(
        f"{report.database}: {state} (integrity {report.integrity}, schema "
        f"{report.schema_version}/{report.code_schema_version}, corpus version "
        f"{report.corpus_version}, search index {report.search_index_version}, "
        f"retired papers {report.retired_papers})"
    )
    for problem in report.problems:
        print(f"problem: {problem}")
    for note in report.notes:
        print(f"note: {note}")
