"""`paperbot saved`: a reader's saved papers in a server, as BibTeX, Markdown, CSV or JSON."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from paperbot.argtypes import snowflake
from paperbot.cli.common import EXIT_OK, with_app
from paperbot.clock import utc_now
from paperbot.config import Settings
from paperbot.core.library_export import EXPORT_FORMATS
from paperbot.services.app import App


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "saved", help="export a reader's saved papers (what /saved export sends)"
    )
    parser.add_argument("--guild", type=snowflake, required=True, help="the server (guild id)")
    parser.add_argument("--user", type=snowflake, required=True, help="the reader (user id)")
    parser.add_argument(
        "--format", choices=EXPORT_FORMATS, default="bibtex", help="file format (default: bibtex)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    async def job(app: App) -> int:
        exported = await app.library.export(args.guild, args.user, args.format, utc_now().date())
        # Text on stdout (the CSV's spreadsheet BOM is for files sent to Discord).
        sys.stdout.write(exported.data.decode("utf-8-sig"))
        count = len(await app.library.saved_ids(args.guild, args.user))
        print(f"{count} saved papers ({exported.filename})", file=sys.stderr)
        return EXIT_OK

    return with_app(settings, job)
