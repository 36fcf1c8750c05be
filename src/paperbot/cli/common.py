"""Helpers shared by the subcommands: exit codes, JSON output, running async jobs."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from paperbot.config import Settings
from paperbot.services.app import App, CorruptDatabase, StorageError

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
EXIT_CANNOT_OPEN = 2  # the database is damaged or cannot be opened

Handler = Callable[[argparse.Namespace, Settings], int]


def fail(message: str, code: int = EXIT_PROBLEMS) -> int:
    """One line on stderr, and the exit code to return."""
    print(f"paperbot: {message}", file=sys.stderr)
    return code


def unknown_venue(venue: str, venues: Iterable[str]) -> str:
    """The line for a venue no loaded paper has, naming the ones there are."""
    known = ", ".join(venues) or "none (nothing is loaded)"
    return f"no loaded paper is from a venue called '{venue}'; venues: {known}"


def unknown_year(year: int, venue: str | None, years: Iterable[int]) -> str:
    """The line for a year no loaded paper (of the venue, if one is given)
    is from, naming the years there are."""
    whose = f"{venue} paper" if venue else "paper"
    known = ", ".join(str(y) for y in years) or "none"
    return f"no loaded {whose} is from {year}; years: {known}"


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def with_app(settings: Settings, job: Callable[[App], Awaitable[int]]) -> int:
    """Open the app (database migrated), run one async job, always close."""

    async def run() -> int:
        app = await App.open(settings)
        try:
            return await job(app)
        finally:
            await app.close()

    try:
        return asyncio.run(run())
    except CorruptDatabase as exc:
        # At open, or found later by a statement (storage names the file).
        return fail(str(exc), EXIT_CANNOT_OPEN)
    except StorageError as exc:
        return fail(str(exc))


def year(text: str) -> int:
    """argparse type: a four-digit year."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a year") from None
    if not 1900 <= value <= 2100:
        raise argparse.ArgumentTypeError(f"{value} is not a plausible year")
    return value
