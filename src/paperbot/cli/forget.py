"""`paperbot forget`: delete everything paperbot stores about a user in a server."""

from __future__ import annotations

import argparse
from typing import Any

from paperbot.argtypes import snowflake
from paperbot.cli.common import EXIT_OK, print_json, with_app
from paperbot.config import Settings
from paperbot.services.app import App


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "forget",
        help="delete everything stored about a user in a server (what /mydata delete does)",
    )
    parser.add_argument("--guild", type=snowflake, required=True, help="the server (guild id)")
    parser.add_argument("--user", type=snowflake, required=True, help="the user (user id)")
    parser.add_argument("--json", action="store_true", help="print what was removed as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    async def job(app: App) -> int:
        removed = await app.user_data.forget(args.guild, args.user)
        if args.json:
            print_json(removed)
            return EXIT_OK
        for label, count in app.user_data.labelled(removed):
            print(f"{label}: {count} removed")
        print(f"forgot user {args.user} in server {args.guild}: {sum(removed.values())} rows")
        return EXIT_OK

    return with_app(settings, job)
