"""`paperbot run`: run the Discord bot until SIGTERM/SIGINT."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
from importlib import metadata
from typing import Any

from paperbot.cli.common import EXIT_CANNOT_OPEN, EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, fail
from paperbot.config import ENV_TOKEN, ConfigError, Settings, token
from paperbot.services.app import CorruptDatabase, StorageError
from paperbot.services.corpus_files import CorpusPathError

NO_TOKEN = (
    f"set {ENV_TOKEN} to your bot's token (Discord Developer Portal -> Applications -> "
    "your app -> Bot -> Reset Token; see the README, 'Running the bot for real')"
)
REJECTED = (
    f"Discord rejected the token in {ENV_TOKEN} ({{reason}}); copy it again, or reset it, from "
    "the Developer Portal -> your app -> Bot"
)

# The exactly-once digest re-sends after a crash with the same nonce and relies
# on Discord's `enforce_nonce`, which discord.py sends from 2.7.1 on (as
# pyproject.toml requires; an older one may still be installed by hand).
MIN_DISCORD = (2, 7, 1)


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "run", help="run the Discord bot (needs DISCORD_TOKEN) until SIGTERM/SIGINT"
    )
    parser.set_defaults(handler=run)


def discord_problem() -> str | None:
    """Why the installed discord.py can't run the bot, or None. Read from the
    package metadata: an old discord.py may not even import (audioop, 3.13)."""
    wanted = ".".join(map(str, MIN_DISCORD))
    try:
        installed = metadata.version("discord.py")
    except metadata.PackageNotFoundError:
        return f"discord.py is not installed; pip install 'discord.py>={wanted},<3'"
    release = re.match(r"\d+(?:\.\d+)*", installed)
    numbers = tuple(int(part) for part in release.group().split(".")) if release else ()
    if numbers < MIN_DISCORD:
        return (
            f"discord.py {installed} is too old: {wanted} or newer is needed to send "
            f"enforce_nonce, which keeps the daily digest from posting twice; "
            f"pip install -U 'discord.py>={wanted},<3'"
        )
    return None


def run(args: argparse.Namespace, settings: Settings) -> int:
    problem = discord_problem()
    if problem:
        return fail(problem, EXIT_USAGE)
    secret = token(settings)
    if not secret:
        return fail(NO_TOKEN, EXIT_USAGE)
    # Imported here so the other subcommands never pay for importing discord.py.
    from paperbot.bot import runner

    level = "DEBUG" if args.verbose else settings.bot.log_level
    runner.configure_logging(level, secret)
    try:
        runner.point_discord_at(os.environ)
    except ValueError as exc:
        return fail(str(exc), EXIT_USAGE)
    try:
        return asyncio.run(runner.run(settings, secret))
    except runner.TokenRejected as exc:
        return fail(REJECTED.format(reason=exc), EXIT_PROBLEMS)
    except ConfigError as exc:
        return fail(f"configuration error: {exc}", EXIT_USAGE)
    except CorruptDatabase as exc:
        # At open, or found later by a statement (storage names the file).
        return fail(str(exc), EXIT_CANNOT_OPEN)
    except (StorageError, CorpusPathError) as exc:
        return fail(str(exc), EXIT_PROBLEMS)
    except runner.DiscordUnavailable as exc:
        return fail(str(exc), EXIT_PROBLEMS)
    except KeyboardInterrupt:
        return EXIT_OK
