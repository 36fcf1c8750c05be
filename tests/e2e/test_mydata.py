"""`/mydata show|export|delete` and the guild-remove event end to end: the real
client against the fake Discord, every request validated (attachments too)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import pytest

from paperbot.bot import respond
from paperbot.bot.cogs.mydata import MyData
from paperbot.services.user_data import GRACE
from tests.fake_discord import FakeUser, button
from tests.support.e2e import E2E, StartBot, stop_bot

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
GONE = 424242  # a server the bot is no longer in


async def reader_data(e2e: E2E, user: FakeUser | None = None) -> None:
    user = user or e2e.member
    app = e2e.bot.app
    await app.subscriptions.subscribe(e2e.guild.id, user.id, "diffusion", NOW)
    await app.library.toggle_saved(e2e.guild.id, user.id, 1, NOW)
    await app.library.toggle_saved(e2e.guild.id, user.id, 2, NOW)


async def counts(e2e: E2E, user: FakeUser | None = None) -> dict[str, int]:
    """The kinds of data stored about the user here, with their row counts."""
    found = await e2e.bot.app.user_data.counts(e2e.guild.id, (user or e2e.member).id)
    return {kind: rows for kind, rows in found.items() if rows}


async def test_show_lists_what_is_stored(e2e: E2E) -> None:
    await reader_data(e2e)
    result = await e2e.slash("mydata show")
    assert result.ephemeral
    text = result.text()
    assert "What paperbot stores about you in this server:" in text
    assert "• Topic subscriptions: 1" in text
    assert "• Saved papers: 2" in text


async def test_show_with_nothing_stored(e2e: E2E) -> None:
    result = await e2e.slash("mydata show", locale="zh-CN")
    assert "paperbot 在本服务器没有保存任何关于你的数据。" in result.text()


async def test_export_is_a_json_attachment(e2e: E2E) -> None:
    await reader_data(e2e)
    result = await e2e.slash("mydata export")
    assert result.ephemeral
    ((name, data),) = result.files().items()
    assert name.startswith("paperbot-mydata-")
    assert name.endswith(".json")
    document = json.loads(data)
    assert document["user_id"] == str(e2e.member.id)
    assert document["guild_id"] == str(e2e.guild.id)
    assert len(document["data"]["subscriptions"]) == 1
    assert len(document["data"]["saved_papers"]) == 2


async def test_delete_asks_then_removes_everything_and_says_what(e2e: E2E) -> None:
    other = FakeUser(name="other")
    await reader_data(e2e)
    await reader_data(e2e, other)
    prompt = await e2e.slash("mydata delete")
    assert prompt.ephemeral
    assert "This cannot be undone." in prompt.text()
    assert await counts(e2e) == {"subscriptions": 1, "saved_papers": 2}  # nothing yet

    confirm = button(prompt.message or {}, "Delete my data")
    done = await e2e.click(prompt.message, confirm["custom_id"])
    assert done.message is not None
    text = done.message["content"]
    assert "Deleted everything paperbot stored about you in this server:" in text
    assert "• Topic subscriptions: 1" in text
    assert "• Saved papers: 2" in text
    assert done.message["components"] == []
    assert await counts(e2e) == {}
    assert await counts(e2e, other) == {"subscriptions": 1, "saved_papers": 2}


async def test_cancel_deletes_nothing(e2e: E2E) -> None:
    await reader_data(e2e)
    prompt = await e2e.slash("mydata delete")
    cancel = button(prompt.message or {}, "Cancel")
    done = await e2e.click(prompt.message, cancel["custom_id"])
    assert done.message is not None
    assert done.message["content"] == "Nothing was deleted."
    assert await counts(e2e) == {"subscriptions": 1, "saved_papers": 2}


async def test_delete_with_nothing_stored_asks_nothing(e2e: E2E) -> None:
    result = await e2e.slash("mydata delete")
    assert "stores nothing about you" in result.text()
    assert result.custom_ids == []


async def test_guild_remove_keeps_data_then_the_daily_job_purges_it(e2e: E2E) -> None:
    await reader_data(e2e)
    await e2e.fake.remove_guild(e2e.guild)
    service = e2e.bot.app.user_data
    for _ in range(100):
        if await service.departures():
            break
        await asyncio.sleep(0.05)
    (departure,) = await service.departures()
    assert departure.guild_id == e2e.guild.id
    assert await counts(e2e) == {"subscriptions": 1, "saved_papers": 2}

    # load_extension imports the cog module afresh: compare by name, not isinstance.
    cog = cast(MyData, e2e.bot.get_cog("MyData"))
    assert type(cog).__name__ == "MyData"
    cog.clock = lambda: departure.left_at + GRACE + timedelta(minutes=1)
    await cog.purge_departed()  # what the daily loop runs
    assert await counts(e2e) == {}
    assert await service.departures() == []


async def test_rejoin_cancels_the_purge(e2e: E2E) -> None:
    await reader_data(e2e)
    guild = e2e.guild
    await e2e.fake.remove_guild(guild)
    service = e2e.bot.app.user_data
    for _ in range(100):
        if await service.departures():
            break
        await asyncio.sleep(0.05)
    await e2e.fake.join_guild(guild)
    for _ in range(100):
        if not await service.departures():
            break
        await asyncio.sleep(0.05)
    assert await service.departures() == []
    assert await service.purge_departed(datetime.now(UTC) + 2 * GRACE) == []
    assert await counts(e2e) == {"subscriptions": 1, "saved_papers": 2}


async def test_a_server_left_while_the_bot_was_down_is_noticed_at_start_up(
    start_bot: StartBot,
) -> None:
    bot = await start_bot()
    await bot.app.subscriptions.subscribe(GONE, 1, "diffusion", NOW)
    await stop_bot(bot)
    bot = await start_bot()
    service = bot.app.user_data
    for _ in range(100):
        if await service.departures():
            break
        await asyncio.sleep(0.05)
    assert [d.guild_id for d in await service.departures()] == [GONE]


async def test_a_slow_delete_defers_then_says_what_was_deleted(
    e2e: E2E, monkeypatch: pytest.MonkeyPatch
) -> None:
    await reader_data(e2e)
    prompt = await e2e.slash("mydata delete")
    monkeypatch.setattr(respond, "DEFER_AFTER_SECONDS", 0.2)
    service = e2e.bot.app.user_data
    real_forget = service.forget

    async def slow_forget(*args: Any) -> Any:
        await asyncio.sleep(0.5)  # years of history to delete
        return await real_forget(*args)

    monkeypatch.setattr(service, "forget", slow_forget)
    done = await e2e.click(
        prompt.message, button(prompt.message or {}, "Delete my data")["custom_id"]
    )
    assert done.callback_type == 6  # deferred: the prompt itself will change
    assert done.message is not None
    assert "Deleted everything paperbot stored about you" in done.message["content"]
    assert done.message["components"] == []
    assert await counts(e2e) == {}
