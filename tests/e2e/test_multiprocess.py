"""Two `paperbot run` processes, one shard each, sharing one PostgreSQL.

The fake Discord serves six servers, three on each of two shards. Every
server gets exactly one digest for the day, also when one process is killed
(SIGKILL) while it posts and is started again; /search and /subscribe are
answered by whichever process owns the server; a page loaded by `paperbot
load` (a third process) is searchable through both.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from datetime import time as clock_time
from pathlib import Path

import pytest

from paperbot.bot.runner import ENV_DISCORD_API
from paperbot.config import BUNDLED_CORPUS
from paperbot.services.corpus import load_corpus
from paperbot.storage import digests, open_database
from tests.fake_discord import FakeDiscord, FakeGuild, FakeUser
from tests.fake_discord.models import new_id
from tests.support.app import REPO
from tests.support.e2e import TOKEN
from tests.support.postgres import fresh_schema, postgres_url
from tests.support.process import finish, kill, spawn

pytestmark = pytest.mark.postgres

SHARDS = 2
SERVERS = 6
READY_WITHIN = 90.0


def spread_guilds(fake: FakeDiscord) -> list[FakeGuild]:
    """Servers whose ids fall on shards 0, 1, 0, 1, ... of two."""
    base = new_id()
    guilds = []
    for n in range(SERVERS):
        guild = FakeGuild(id=base + (n << 22), name=f"group {n}")
        guild.add_channel("papers")
        fake.guilds[guild.id] = guild
        guilds.append(guild)
    return guilds


async def prepare(url: str, guilds: list[FakeGuild]) -> None:
    """The corpus, and every server's digest due since midnight UTC today."""
    db = await open_database(url)
    try:
        yesterday = datetime.now(UTC) - timedelta(days=1)
        await load_corpus(db, [BUNDLED_CORPUS], default_area="预训练", now=yesterday)
        for guild in guilds:
            await digests.save_settings(
                db,
                guild_id=guild.id,
                channel_id=guild.channels[0].id,
                post_time=clock_time(0, 0),
                timezone="UTC",
                count=3,
                updated_by=None,
                now=yesterday,
            )
    finally:
        await db.close()


class Bots:
    """`paperbot run --shards N --shard-count 2` processes, logging to files."""

    def __init__(self, env: dict[str, str], folder: Path) -> None:
        self.env = env
        self.folder = folder
        self.processes: dict[int, asyncio.subprocess.Process] = {}
        self.starts = 0

    async def start(self, shard: int) -> None:
        self.starts += 1
        log = self.folder / f"shard{shard}-{self.starts}.log"
        with log.open("wb") as sink:
            process = await spawn(
                self.env,
                self.folder,
                *("run", "--shards", str(shard), "--shard-count", str(SHARDS)),
                stdout=asyncio.subprocess.DEVNULL,
                stderr=sink,
            )
        self.processes[shard] = process
        deadline = time.monotonic() + READY_WITHIN
        while " ready: logged in as " not in log.read_text(encoding="utf-8", errors="replace"):
            if process.returncode is not None or time.monotonic() > deadline:
                raise AssertionError(f"shard {shard} never got ready:\n{log.read_text()}")
            await asyncio.sleep(0.1)

    async def kill(self, shard: int) -> None:
        await kill(self.processes.pop(shard))

    async def stop_all(self) -> None:
        for process in self.processes.values():
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                await asyncio.wait_for(process.wait(), 20)
            except TimeoutError:
                process.kill()
                await process.wait()


async def until(check: Callable[[], bool], within: float, what: str) -> None:
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


@pytest.fixture
async def shared_db() -> AsyncIterator[str]:
    async with fresh_schema(postgres_url()) as url:
        yield url


@pytest.fixture
def bots(tmp_path: Path, shared_db: str, fake_discord: FakeDiscord) -> Bots:
    config = tmp_path / "paperbot.toml"
    config.write_text(
        f'[topics]\npath = "{REPO / "src" / "paperbot" / "data" / "topics.toml"}"\n'
        '[bot]\nlog_level = "INFO"\nshutdown_grace_seconds = 2.0\n',
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERBOT_", "DISCORD_"))}
    env |= {
        "PAPERBOT_CONFIG": str(config),
        "PAPERBOT_DB": shared_db,
        "DISCORD_TOKEN": TOKEN,
        ENV_DISCORD_API: fake_discord.url,
        "PYTHONUNBUFFERED": "1",
    }
    return Bots(env, tmp_path)


async def search_text(fake: FakeDiscord, guild: FakeGuild, query: str) -> str:
    result = await fake.slash(
        "search", user=FakeUser(name="reader"), guild=guild, channel=guild.channels[0], query=query
    )
    return result.text()


async def test_two_sharded_processes_share_one_postgres(
    fake_discord: FakeDiscord, bots: Bots, shared_db: str, tmp_path: Path
) -> None:
    guilds = spread_guilds(fake_discord)
    await prepare(shared_db, guilds)
    posted = {g.id: (lambda g=g: fake_discord.channel_history(g.channels[0])) for g in guilds}
    on_shard_1 = [g for g in guilds if (g.id >> 22) % SHARDS == 1]
    try:
        await bots.start(0)
        await bots.start(1)
        # Shard 1 is killed as soon as its first digest reaches Discord: that one
        # is usually not yet confirmed in the database, the others not yet sent
        # (sends are paced 0.25 s apart); the restart must settle both kinds.
        await until(lambda: any(posted[g.id]() for g in on_shard_1), 60, "a shard-1 digest")
        await bots.kill(1)
        await bots.start(1)
        await until(lambda: all(posted[g.id]() for g in guilds), 90, "every server's digest")
        await asyncio.sleep(3)  # a second post would come now, if one were coming
        assert {g.name: len(posted[g.id]()) for g in guilds} == {g.name: 1 for g in guilds}
        db = await open_database(shared_db)
        try:
            states = await db.fetch_all("SELECT guild_id, state FROM digest_posts")
        finally:
            await db.close()
        assert sorted(int(g) for g, _ in states) == sorted(g.id for g in guilds)
        assert {s for _, s in states} == {"confirmed"}

        # Each server is answered by its own shard's process.
        for guild in guilds[:2]:
            assert "Diffusion" in await search_text(fake_discord, guild, "diffusion")
            subscribed = await fake_discord.slash(
                "subscribe", user=FakeUser(name="reader"), guild=guild,
                channel=guild.channels[0], topic="scaling laws",
            )  # fmt: skip
            assert "Subscribed to **Scaling laws · 缩放定律**." in subscribed.text()

        # A page loaded by a third process is searchable through both.
        page = tmp_path / "extra" / "extra-icml-2026.txt"
        page.parent.mkdir()
        page.write_text(
            "📚 预训练¶\n\n🧠 ICML2026 · 1 篇论文解读\n\n"
            "Zebrafish Transformers for Marine Biology: 提出斑马鱼 Transformer，用于海洋生物学。\n",
            encoding="utf-8",
        )
        loader = await spawn(
            bots.env, tmp_path, "load", str(page), stdout=asyncio.subprocess.DEVNULL
        )
        code, err = await finish(loader, 60)
        assert code == 0, err
        for guild in guilds[:2]:
            deadline = time.monotonic() + 20
            while "Zebrafish" not in (text := await search_text(fake_discord, guild, "zebrafish")):
                assert time.monotonic() < deadline, text
                await asyncio.sleep(0.5)

        # A third process for a shard that has a live owner is refused before it logs in.
        intruder = await spawn(
            bots.env,
            tmp_path,
            *("run", "--shards", "0", "--shard-count", str(SHARDS)),
            stdout=asyncio.subprocess.DEVNULL,
        )
        code, err = await finish(intruder, 60)
        assert code == 1, err
        assert "shard 0 of 2 is already run by another paperbot process" in err
    finally:
        await bots.stop_all()
