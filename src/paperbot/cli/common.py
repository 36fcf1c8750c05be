"""Helpers shared by the subcommands: exit codes, JSON output, running async jobs."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from paperbot.config import Settings
from paperbot.services.app import App, StorageError

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2

Handler = Callable[[argparse.Namespace, Settings], int]


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


def year(text: str) -> int:
    """argparse type: a four-digit year."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a year") from None
    if not 1900 <= value <= 2100:
        raise argparse.ArgumentTypeError(f"{value} is not a plausible year")
    return value
