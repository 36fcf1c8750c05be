"""`paperbot ...`: every job of the bot, without Discord.

Each subcommand lives in its own module of this package, listed in
`COMMANDS` under the command's name, with a `register(subparsers)` function.
A command line naming a command imports and registers that module alone:
the others' imports (the HTTP client, the benchmarks, ...) would cost a
fixed ~0.2 s at every start, `paperbot load` included.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import logging
import os
import sys
from collections.abc import Sequence

from paperbot import __version__
from paperbot.cli.common import EXIT_USAGE, Handler, fail
from paperbot.config import ConfigError, Settings, load_settings

COMMANDS = {
    "init": "init",
    "load": "load",
    "list": "list_papers",
    "search": "search",
    "bench": "bench",
    "topics": "topics",
    "subscriptions": "subscriptions",
    "saved": "saved",
    "forget": "forget",
    "purge": "purge",
    "digest": "digest",
    "similar": "similar",
    "run": "run",
    "doctor": "doctor",
}
"""Command name -> its module in this package, in `paperbot --help`'s order."""


def command_named(argv: Sequence[str]) -> str | None:
    """The command `argv` names, or None (none, or an unknown one). The
    top-level options take no value, so it is the first other word."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with `command`, of that one alone (the
    same parser for its command lines: the others are never chosen)."""
    parser = argparse.ArgumentParser(
        prog="paperbot",
        description="Paper digests for Discord: load, search, subscribe, digest, run.",
    )
    parser.add_argument("--version", action="version", version=f"paperbot {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details to stderr")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module in COMMANDS.items():
        if command is None or name == command:
            importlib.import_module(f"paperbot.cli.{module}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    own_process = argv is None  # the command line this process was started for
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(command_named(argv)).parse_args(argv)
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
    if own_process:
        # The modules imported so far live until the process ends: out of the
        # collector's sight, the full collections during a 100,000-paper load
        # take ~0.2 s less. (Not when called in-process, as by the tests:
        # frozen objects are never collected.)
        gc.freeze()
    try:
        return _handle(args, settings)
    finally:
        if own_process:
            # The process ends with the command: no last collection of its heap.
            gc.freeze()


def _handle(args: argparse.Namespace, settings: Settings) -> int:
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
