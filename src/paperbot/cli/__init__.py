"""`paperbot ...`: every job of the bot, without Discord.

Each subcommand lives in its own module of this package, listed in
`COMMANDS`, with a `register(subparsers)` function.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence

from paperbot import __version__
from paperbot.cli.common import EXIT_USAGE, Handler, fail
from paperbot.config import ConfigError, Settings, load_settings

COMMANDS = (
    "init",
    "load",
    "list_papers",
    "search",
    "bench",
    "topics",
    "subscriptions",
    "saved",
    "forget",
    "purge",
    "digest",
    "similar",
    "run",
    "doctor",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paperbot",
        description="Paper digests for Discord: load, search, subscribe, digest, run.",
    )
    parser.add_argument("--version", action="version", version=f"paperbot {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details to stderr")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"paperbot.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings() if getattr(args, "needs_settings", True) else Settings()
    except ConfigError as exc:
        return fail(f"configuration error: {exc}", EXIT_USAGE)
    # Jobs talk through their own output; logs only say what went wrong
    # (`paperbot run` sets up the bot's own logging at the configured level).
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # aiosqlite logs every statement at DEBUG: noise even for `-v` (as in `paperbot run`).
    logging.getLogger("aiosqlite").setLevel(logging.INFO)
    handler: Handler = args.handler
    try:
        return handler(args, settings)
    except ConfigError as exc:
        # Found while starting a job (a malformed topic vocabulary, ...).
        return fail(f"configuration error: {exc}", EXIT_USAGE)
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    except BrokenPipeError:
        # `paperbot list | head` stopped reading: that is not an error. Point
        # stdout at /dev/null so the interpreter's final flush stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
