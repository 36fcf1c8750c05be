"""A process schedules only the servers on its shards."""

from __future__ import annotations

from pathlib import Path

from paperbot.bot.client import PaperBot, ShardedPaperBot, bot_for
from paperbot.config import BotSettings
from paperbot.services.app import App
from tests.support.app import FIXED_NOW, settings_for


async def test_enabled_lists_only_this_processes_servers(tmp_path: Path) -> None:
    database = tmp_path / "paperbot.sqlite3"
    sharded = BotSettings(shards=[1], shard_count=2)
    everything = await App.open(settings_for(database))
    try:
        for guild in (0, 1 << 22, 2 << 22, 3 << 22):
            await everything.digest.setup(
                guild_id=guild,
                channel_id=guild + 7,
                time_text="09:00",
                timezone_text="UTC",
                count=3,
                user_id=None,
                now=FIXED_NOW,
            )
        assert len(await everything.digest.enabled()) == 4
    finally:
        await everything.close()
    app = await App.open(settings_for(database, bot=sharded))
    try:
        owned = [s.guild_id for s in await app.digest.enabled()]
        assert owned == [1 << 22, 3 << 22]
        await app.digest.hold_shards()  # SQLite: one process, always granted
    finally:
        await app.close()


async def test_the_bot_is_sharded_when_shards_are_set(tmp_path: Path) -> None:
    app = await App.open(
        settings_for(tmp_path / "db.sqlite3", bot=BotSettings(shards=[0, 2], shard_count=4))
    )
    try:
        bot = bot_for(app)
        assert isinstance(bot, ShardedPaperBot)
        assert bot.shard_ids == [0, 2]
        assert bot.shard_count == 4  # never logged in: nothing to close
    finally:
        await app.close()
    plain = await App.open(settings_for(tmp_path / "db.sqlite3"))
    try:
        bot = bot_for(plain)
        assert type(bot) is PaperBot
        await bot.close()
    finally:
        await plain.close()
