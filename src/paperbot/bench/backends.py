"""`--backend postgresql`: the same measurement on SQLite and on PostgreSQL
in one run, PostgreSQL's figures beside SQLite's and as ratios.

The PostgreSQL side runs in a scratch schema of `--postgres-url` (default
`$PAPERBOT_BENCH_POSTGRES`, else `$PAPERBOT_DB` when that is a PostgreSQL
URL), dropped afterwards.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from paperbot.bench import BenchmarkRefused
from paperbot.services.app import scratch_postgres

Measure = Callable[[str | Path], Awaitable[dict[str, Any]]]
#: Figures compared as time ratios: durations by their unit suffix.
_TIMED = ("_s", "_ms")


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backend",
        choices=("sqlite", "postgresql"),
        default="sqlite",
        help="postgresql: measure on both and report PostgreSQL over SQLite",
    )
    parser.add_argument("--postgres-url", help="PostgreSQL for --backend postgresql")


def postgres_url(args: argparse.Namespace) -> str:
    url = args.postgres_url or os.environ.get("PAPERBOT_BENCH_POSTGRES", "")
    if not url and os.environ.get("PAPERBOT_DB", "").startswith(("postgresql://", "postgres://")):
        url = os.environ["PAPERBOT_DB"]
    if not url:
        raise BenchmarkRefused(
            "--backend postgresql needs --postgres-url postgresql://user@host/db "
            "(or PAPERBOT_BENCH_POSTGRES)"
        )
    return url


async def on_backends(args: argparse.Namespace, sqlite: Path, measure: Measure) -> dict[str, Any]:
    """SQLite's figures; with --backend postgresql also `pg_*` and `*_pg_vs_sqlite`."""
    base = await measure(sqlite)
    if args.backend == "sqlite":
        return base
    async with scratch_postgres(postgres_url(args)) as url:
        other = await measure(url)
    return {**base, "backend": "postgresql vs sqlite", **compare(base, other)}


def compare(sqlite: dict[str, Any], postgresql: dict[str, Any]) -> dict[str, Any]:
    """PostgreSQL's figures (`pg_` prefix) and, for durations, PostgreSQL / SQLite."""
    found: dict[str, Any] = {}
    for key, value in postgresql.items():
        found[f"pg_{key}"] = value
        base = sqlite.get(key)
        timed = (key.endswith(_TIMED) or "_ms_per_" in key) and isinstance(value, int | float)
        if timed and isinstance(base, int | float) and base > 0:
            found[f"{key}_pg_vs_sqlite"] = value / base
    return found
