"""`paperbot digest history`: a server's past digests, without Discord."""

from __future__ import annotations

import argparse
from typing import Any

from paperbot.argtypes import snowflake
from paperbot.cli.common import EXIT_OK, fail, print_json, with_app
from paperbot.config import Settings
from paperbot.core.digest_history import ArchivedPost, history_json, parse_date
from paperbot.services.app import App


def register(actions: Any) -> None:
    """Add `history` to the `paperbot digest` actions."""
    history: argparse.ArgumentParser = actions.add_parser(
        "history",
        help="print a server's past digests, newest first",
        description=(
            "The digests posted in server G, newest first: date, the picks and a link to"
            " the original message. Only delivered posts are listed."
        ),
    )
    history.add_argument("--guild", type=snowflake, required=True, help="server id")
    history.add_argument("--until", type=_date, help="start from this date (YYYY-MM-DD) back")
    history.add_argument("--limit", type=_limit, default=50, help="posts to show (default 50)")
    history.add_argument("--json", action="store_true", help="print a JSON array")
    history.set_defaults(handler=run)


def _date(text: str) -> str:
    if parse_date(text) is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)")
    return text


def _limit(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 500:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number from 1 to 500")
    return int(text)


def run(args: argparse.Namespace, settings: Settings) -> int:
    until = parse_date(args.until) if args.until else None

    async def job(app: App) -> int:
        posts = await app.archive.history(args.guild, until=until, limit=args.limit)
        if args.json:
            print_json(history_json(posts))
        else:
            _print(posts)
        if not posts:
            return fail(
                f"server {args.guild} has no delivered digest"
                + (f" on or before {until.isoformat()}" if until else "")
            )
        return EXIT_OK

    return with_app(settings, job)


def _print(posts: list[ArchivedPost]) -> None:
    for post in posts:
        kind = "extra" if post.extra else "daily"
        print(f"{post.local_date.isoformat()}  {kind}  {post.jump_url}")
        for number, pick in enumerate(post.picks, start=1):
            print(f"   {number}. {pick.title} ({pick.venue} {pick.year})")
