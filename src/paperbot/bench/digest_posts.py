"""The database side of the daily digest: every server's post of the day
through `DigestService.run_scheduled` (pick from the stored corpus, claim,
sent, confirmed), then a second round that must post nothing.

Transport: an in-process stand-in for Discord (no network), so the figures
are the service and the database. With `--backend postgresql` the same run
on PostgreSQL is reported beside SQLite's (`bench/backends.py`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.clock import utc_now
from paperbot.config import Settings
from paperbot.core.render import MessageData
from paperbot.services.app import open_database
from paperbot.services.corpus import CorpusService
from paperbot.services.digest import ChannelMessage, DigestService

CORPUS_PAPERS = 2_000


class _Discord:
    """Accepts every post; history is empty (no crash to recover from)."""

    def __init__(self) -> None:
        self.sent = 0

    async def send(self, channel_id: int, message: MessageData, nonce: str) -> int:  # noqa: ARG002
        self.sent += 1
        return 10**18 + self.sent

    async def history(
        self,
        channel_id: int,  # noqa: ARG002
        after: datetime,  # noqa: ARG002
        limit: int,  # noqa: ARG002
    ) -> Sequence[ChannelMessage]:
        return []


def write_posts_corpus(folder: Path) -> Path:
    write_corpus(folder, synthetic_papers(CORPUS_PAPERS, seed=5))
    return folder


async def measure_posts(target: str | Path, corpus: Path, servers: int) -> dict[str, Any]:
    db = await open_database(target)
    try:
        now = utc_now()
        await CorpusService(db).load([corpus], default_area="预训练", now=now, limits=BENCH_LIMITS)
        service = DigestService(db, Settings())
        guilds = [(n + 1) << 22 for n in range(servers)]
        for guild in guilds:
            await service.setup(
                guild_id=guild,
                channel_id=guild + 1,
                time_text="00:00",
                timezone_text="UTC",
                count=5,
                user_id=None,
                now=now - timedelta(days=1),
            )
        discord = _Discord()
        start = time.perf_counter()
        first = [await service.run_scheduled(g, discord, now) for g in guilds]
        posts_s = time.perf_counter() - start
        start = time.perf_counter()
        again = [await service.run_scheduled(g, discord, now) for g in guilds]
        again_s = time.perf_counter() - start
    finally:
        await db.close()
    return {
        "posts_servers": servers,
        "posts_posted": sum(r.outcome == "posted" for r in first),
        "posts_s": posts_s,
        "posts_ms_per_server": posts_s * 1000 / servers,
        "posts_second_round_ms_per_server": again_s * 1000 / servers,
        "posts_exactly_once": discord.sent == servers
        and all(r.outcome == "already-posted" for r in again),
    }
