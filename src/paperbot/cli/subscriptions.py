"""`paperbot subscriptions`: the stored topic subscriptions, for operators."""

from __future__ import annotations

import argparse
from typing import Any

from paperbot.argtypes import positive_int
from paperbot.cli.common import EXIT_OK, print_json, with_app
from paperbot.config import Settings
from paperbot.services.app import App


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "subscriptions", help="list stored topic subscriptions"
    )
    parser.add_argument("--guild", type=positive_int, help="only this server (guild id)")
    parser.add_argument("--user", type=positive_int, help="only this user (user id)")
    parser.add_argument("--json", action="store_true", help="print one JSON array")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    async def job(app: App) -> int:
        found = await app.subscriptions.listing(guild_id=args.guild, user_id=args.user)
        rows = []
        for sub in found:
            topic = app.topics.stored(sub.kind, sub.topic, sub.label)
            rows.append(
                {
                    "guild_id": sub.guild_id,
                    "user_id": sub.user_id,
                    "kind": sub.kind,
                    "topic": sub.topic,
                    "label": topic.label,
                    "retired": app.topics.is_retired(topic),
                    "created_at": sub.created_at.isoformat(),
                }
            )
        if args.json:
            print_json(rows)
            return EXIT_OK
        for row in rows:
            retired = "  (retired: no longer in the vocabulary)" if row["retired"] else ""
            print(
                f"{row['guild_id']:>20}  {row['user_id']:>20}  {row['kind']:<7}  "
                f"{row['label']}{retired}"
            )
        users = len({(r["guild_id"], r["user_id"]) for r in rows})
        guilds = len({r["guild_id"] for r in rows})
        print(f"{len(rows)} subscriptions by {users} users in {guilds} servers")
        return EXIT_OK

    return with_app(settings, job)
