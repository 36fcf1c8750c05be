"""`paperbot run`: run the Discord bot until SIGTERM/SIGINT."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
from importlib import metadata
from typing import Any

from pydantic import ValidationError

from paperbot.cli.common import EXIT_CANNOT_OPEN, EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, fail
from paperbot.config import ENV_TOKEN, BotSettings, ConfigError, Settings, token
from paperbot.core.shards import parse_shard_ids
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
    parser.add_argument(
        "--shards",
        metavar="IDS",
        help="run only these shards, e.g. 0,1 or 0-3 (bot.shards / PAPERBOT_SHARDS); "
        "needs --shard-count",
    )
    parser.add_argument(
        "--shard-count",
        type=int,
        metavar="N",
        help="how many shards all processes run together (bot.shard_count)",
    )
    parser.set_defaults(handler=run)


def with_shards(args: argparse.Namespace, settings: Settings) -> Settings:
    """Settings with --shards/--shard-count applied; ConfigError saying why not."""
    shards = getattr(args, "shards", None)
    count = getattr(args, "shard_count", None)
    if shards is None and count is None:
        return settings
    update: dict[str, Any] = {}
    try:
        if shards is not None:
            update["shards"] = list(parse_shard_ids(shards))
        if count is not None:
            update["shard_count"] = count
        bot = BotSettings.model_validate(settings.bot.model_dump() | update)
    except (ValueError, ValidationError) as exc:
        raise ConfigError(f"--shards/--shard-count: {_first_line(exc)}") from None
    return settings.model_copy(update={"bot": bot})


def _first_line(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
    return str(exc)


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
        return asyncio.run(runner.run(with_shards(args, settings), secret))
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
