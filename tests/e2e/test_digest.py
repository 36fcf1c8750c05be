"""/digest end to end: the real discord.py client against the fake Discord, every
request body validated against Discord's OpenAPI spec (the fixture fails the
test on any violation)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, JobExecutionEvent

from paperbot.bot import scheduler as scheduler_module
from paperbot.core import schedule
from paperbot.services.digest import daily_time
from tests.fake_discord import FakeChannel, FakeDiscord, FakeUser, InteractionResult
from tests.support.e2e import E2E, StartBot, stop_bot


def utc_now() -> datetime:
    return datetime.now(UTC)


async def setup_digest(
    e2e: E2E, user: FakeUser, target: FakeChannel, **options: Any
) -> InteractionResult:
    """`/digest setup channel:<target> ...` typed in the guild's first channel."""
    return await e2e.slash("digest setup", user=user, options={"channel": target}, **options)


async def test_scheduled_digest_fires_end_to_end(e2e: E2E) -> None:
    bot = e2e.bot
    guild = e2e.guild
    readers = [e2e.member, FakeUser(name="second reader")]
    real_now = datetime.now(UTC)
    for reader in readers:
        await bot.app.subscriptions.subscribe(guild.id, reader.id, "reasoning", real_now)
    bystander = FakeUser(name="bystander")  # follows a topic nothing matches
    await bot.app.subscriptions.subscribe(guild.id, bystander.id, "zzqx-nothing", real_now)

    # The admin's slot is a few minutes ahead, so "now" has not passed it yet.
    at = (real_now + timedelta(minutes=3)).strftime("%H:%M")
    result = await setup_digest(e2e, e2e.admin, e2e.channel, time=at, timezone="UTC", count=3)
    assert result.ephemeral
    assert ":F>" in result.text()
    assert ":R>" in result.text()
    configured = await bot.app.digest.get_settings(guild.id)
    assert configured is not None
    slot = schedule.next_post(real_now, daily_time(configured))

    # Start the scheduler as the runner does, on a clock just before the slot.
    clock = [slot - timedelta(seconds=30)]
    sched = await scheduler_module.start(bot, clock=lambda: clock[0])
    try:
        assert sched._catch_up is not None
        assert [r.outcome for r in await sched._catch_up] == ["not-due"]
        assert sched.next_run_time(guild.id) == slot
        # The slot arrives: fire the real cron job now.
        clock[0] = slot + timedelta(seconds=1)
        executed: asyncio.Queue[JobExecutionEvent] = asyncio.Queue()
        sched.scheduler.add_listener(executed.put_nowait, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
        sched.scheduler.modify_job(scheduler_module.job_id(guild.id), next_run_time=real_now)
        event = await asyncio.wait_for(executed.get(), timeout=10)
        assert event.exception is None
        assert event.retval.outcome == "posted"
    finally:
        await scheduler_module.shutdown(sched)

    [post] = e2e.fake.requests_to("POST", rf"/channels/{e2e.channel.id}/messages$")
    body = post.body
    assert body["nonce"] == schedule.digest_nonce(guild.id, slot.date())
    assert body["enforce_nonce"] is True
    wanted = sorted(str(r.id) for r in readers)
    assert sorted(body["allowed_mentions"]["users"]) == wanted
    assert body["allowed_mentions"]["parse"] == []
    assert "roles" not in body["allowed_mentions"] or body["allowed_mentions"]["roles"] == []
    for reader in readers:
        assert f"<@{reader.id}>" in body["content"]
    assert f"<@{bystander.id}>" not in body["content"]
    assert slot.date().isoformat() in body["content"]
    assert len(body["embeds"]) == 3
    assert all(e["url"].startswith("https://arxiv.org/search/") for e in body["embeds"])
    [message] = e2e.fake.channel_history(e2e.channel)
    assert message["content"] == body["content"]


async def test_setup_now_off_need_manage_server(e2e: E2E) -> None:
    refused = await setup_digest(e2e, e2e.member, e2e.channel, time="09:00")
    assert refused.ephemeral
    assert "Manage Server" in refused.text()
    assert await e2e.bot.app.digest.get_settings(e2e.guild.id) is None
    for command in ("digest now", "digest off"):
        answer = await e2e.slash(command)
        assert answer.ephemeral
        assert "Manage Server" in answer.text()
    assert e2e.fake.channel_history(e2e.channel) == []


async def test_now_and_preview(e2e: E2E) -> None:
    await setup_digest(e2e, e2e.admin, e2e.channel, time="06:00", count=2)
    preview = await e2e.slash("digest preview")  # a plain member may preview
    assert preview.ephemeral
    assert len(preview.embeds) == 2
    posted = await e2e.slash("digest now", user=e2e.admin)
    assert posted.ephemeral
    assert "Posted 2 papers" in posted.text()
    [message] = e2e.fake.channel_history(e2e.channel)
    titles = {e["title"] for e in message["embeds"]}
    assert titles == {e["title"] for e in preview.embeds}
    # Never a repeat: the next preview shows other papers.
    again = await e2e.slash("digest preview")
    assert not titles & {e["title"] for e in again.embeds}
    off = await e2e.slash("digest off", user=e2e.admin)
    assert off.ephemeral
    assert "off" in off.text()


async def test_timezone_autocomplete(e2e: E2E) -> None:
    choices = await e2e.autocomplete(
        "digest setup", focused="timezone", user=e2e.admin, time="09:00", timezone="shang"
    )
    assert choices[0]["value"] == "Asia/Shanghai"


async def test_bad_time_gets_a_clear_message(e2e: E2E) -> None:
    answer = await setup_digest(e2e, e2e.admin, e2e.channel, time="25:00")
    assert answer.ephemeral
    assert "09:00" in answer.text()
    assert await e2e.bot.app.digest.get_settings(e2e.guild.id) is None


async def test_missed_digest_posts_once_across_restarts(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    """Down at the scheduled time: the first start-up posts it, the next does not."""
    bot = await start_bot()
    e2e = E2E(fake_discord, bot)
    await bot.app.subscriptions.subscribe(e2e.guild.id, e2e.member.id, "reasoning", utc_now())
    await setup_digest(e2e, e2e.admin, e2e.channel, time="06:00", timezone="Asia/Shanghai")
    configured = await bot.app.digest.get_settings(e2e.guild.id)
    assert configured is not None
    # The bot comes back (twice) six hours after tomorrow's 06:00 slot in Shanghai.
    slot = schedule.next_post(utc_now(), daily_time(configured))
    later = slot + timedelta(hours=6)
    for _restart in range(2):
        await stop_bot(bot)
        bot = await start_bot()
        sched = await scheduler_module.start(bot, clock=lambda: later)
        try:
            assert sched._catch_up is not None
            await sched._catch_up
        finally:
            await scheduler_module.shutdown(sched)
    [message] = fake_discord.channel_history(e2e.channel)
    local_day = schedule.local_date(slot, ZoneInfo("Asia/Shanghai"))
    assert local_day.isoformat() in message["content"]
    assert f"<@{e2e.member.id}>" in message["content"]
    posts = fake_discord.requests_to("POST", rf"/channels/{e2e.channel.id}/messages$")
    assert len(posts) == 1
