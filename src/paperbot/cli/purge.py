"""`paperbot purge`: delete the data of servers that removed the bot over 30 days ago.

The running bot does the same once a day; this shows (`--dry-run`) or does
it on demand. Servers still in their grace period are listed, not touched.
"""

from __future__ import annotations

import argparse
from typing import Any

from paperbot.cli.common import EXIT_OK, print_json, with_app
from paperbot.clock import utc_now
from paperbot.config import Settings
from paperbot.services.app import App
from paperbot.services.user_data import Departure


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "purge", help="delete the data of servers that removed the bot more than 30 days ago"
    )
    parser.add_argument("--dry-run", action="store_true", help="only show what would be deleted")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def _record(departure: Departure) -> dict[str, Any]:
    return {
        "guild_id": departure.guild_id,
        "left_at": departure.left_at.isoformat(),
        "purge_after": departure.purge_after.isoformat(),
        "rows": departure.rows,
    }


def _line(departure: Departure) -> str:
    rows = ", ".join(f"{table} {count}" for table, count in departure.rows.items() if count)
    return (
        f"  server {departure.guild_id}: left {departure.left_at:%Y-%m-%d %H:%M} UTC"
        f" ({rows or 'no rows'})"
    )


def run(args: argparse.Namespace, settings: Settings) -> int:
    async def job(app: App) -> int:
        now = utc_now()
        waiting = [d for d in await app.user_data.departures() if not d.due(now)]
        purged = await app.user_data.purge_departed(now, dry_run=args.dry_run)
        if args.json:
            key = "would_purge" if args.dry_run else "purged"
            print_json({key: [_record(d) for d in purged], "kept": [_record(d) for d in waiting]})
            return EXIT_OK
        verb = "would purge" if args.dry_run else "purged"
        print(f"{verb} {len(purged)} servers")
        for departure in purged:
            print(_line(departure))
        if waiting:
            print(f"kept for a re-invite: {len(waiting)} servers")
            for departure in waiting:
                print(f"{_line(departure)}; purged after {departure.purge_after:%Y-%m-%d}")
        return EXIT_OK

    return with_app(settings, job)
