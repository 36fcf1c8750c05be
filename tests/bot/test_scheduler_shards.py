"""Digest sends per process: its shard share of the global budget."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from paperbot.bot.scheduler import (
    GLOBAL_SENDS_PER_S,
    SEND_INTERVAL_S,
    DigestScheduler,
    send_interval,
)
from paperbot.config import BotSettings
from paperbot.core.shards import ShardSet
from paperbot.services.app import App
from tests.support.app import FIXED_NOW, settings_for


@pytest.mark.parametrize(
    ("processes", "shard_count"), [(1, 1), (2, 4), (4, 4), (16, 16), (32, 64), (100, 100)]
)
def test_processes_together_stay_under_the_global_budget(processes: int, shard_count: int) -> None:
    per_process = shard_count // processes
    groups = [
        ShardSet(tuple(range(n * per_process, (n + 1) * per_process)), shard_count)
        for n in range(processes)
    ]
    total = sum(1.0 / send_interval(group) for group in groups)
    assert total <= max(GLOBAL_SENDS_PER_S, 1.0 / SEND_INTERVAL_S) + 1e-9
    assert total < 50  # Discord's global limit per bot token


def test_one_process_keeps_its_pace() -> None:
    assert send_interval(ShardSet()) == SEND_INTERVAL_S


class _Quiet:
    """A transport the test never reaches: nothing is due."""

    async def send(self, *_args: object) -> int:
        raise AssertionError("nothing should be sent")

    async def history(self, *_args: object) -> list[object]:
        raise AssertionError("nothing should be read")


async def test_a_schedule_changed_elsewhere_is_followed_on_its_shard_only(tmp_path: Path) -> None:
    app = await App.open(
        settings_for(tmp_path / "db.sqlite3", bot=BotSettings(shards=[1], shard_count=2))
    )
    scheduler = DigestScheduler(app.digest, _Quiet())  # type: ignore[arg-type]
    mine, theirs = 1 << 22, 2 << 22
    try:
        for guild in (mine, theirs):
            await app.digest.setup(
                guild_id=guild, channel_id=guild + 1, time_text="23:59", timezone_text="UTC",
                count=3, user_id=None, now=FIXED_NOW,
            )  # fmt: skip
        scheduler.scheduler.start()
        scheduler.changed_elsewhere(mine)
        scheduler.changed_elsewhere(theirs)
        for _ in range(100):
            if scheduler.next_run_time(mine) is not None:
                break
            await asyncio.sleep(0.01)
        assert scheduler.next_run_time(mine) is not None
        assert scheduler.next_run_time(theirs) is None
        await app.digest.off(mine, FIXED_NOW)
        scheduler.changed_elsewhere(mine)
        for _ in range(100):
            if scheduler.next_run_time(mine) is None:
                break
            await asyncio.sleep(0.01)
        assert scheduler.next_run_time(mine) is None
    finally:
        await scheduler.shutdown()
        await app.close()
