"""Helpers shared by the subcommands: exit codes, JSON output, running async jobs."""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from paperbot.config import Settings
from paperbot.services.app import App
from paperbot.storage.db import StorageError, describe_sqlite_error

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2

Handler = Callable[[argparse.Namespace, Settings], int]
T = TypeVar("T")


def fail(message: str, code: int = EXIT_PROBLEMS) -> int:
    """One line on stderr, and the exit code to return."""
    print(f"paperbot: {message}", file=sys.stderr)
    return code


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
    except StorageError as exc:
        return fail(str(exc))
    except sqlite3.Error as exc:
        # A failure outside a transaction (reads): still one line, never a traceback.
        return fail(describe_sqlite_error(settings.database.path, exc))


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


#: Discord ids are unsigned 64-bit, but their top bit is a timestamp bit that
#: stays 0 until 2084, and SQLite stores signed 64-bit integers: anything above
#: this cannot be a real id and would overflow the database.
SNOWFLAKE_MAX = 2**63 - 1


def snowflake(text: str) -> int:
    """argparse type: a Discord id (a whole number from 1 to `SNOWFLAKE_MAX`)."""
    value = text.strip()
    if not (value.isascii() and value.isdigit()) or not 0 < int(value) <= SNOWFLAKE_MAX:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a Discord id (a whole number from 1 to {SNOWFLAKE_MAX})"
        )
    return int(value)


def year(text: str) -> int:
    """argparse type: a four-digit year."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a year") from None
    if not 1900 <= value <= 2100:
        raise argparse.ArgumentTypeError(f"{value} is not a plausible year")
    return value
