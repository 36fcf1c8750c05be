"""/digest me end to end: the real discord.py client against the fake Discord
(every body validated against Discord's OpenAPI spec): the DM opened with
`POST /users/@me/channels` and sent once with its nonce, across restarts;
closed DMs (50007) switch it off and the reader is told once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from paperbot.bot import personal_scheduler
from paperbot.bot import scheduler as scheduler_module
from paperbot.bot.client import PaperBot
from paperbot.core import schedule
from paperbot.core.personal import personal_nonce
from paperbot.services.personal_digest import DmResult, daily_time
from tests.fake_discord import FakeDiscord
from tests.support.e2e import E2E, StartBot, stop_bot


def utc_now() -> datetime:
    return datetime.now(UTC)


async def catch_up(bot: PaperBot, when: datetime) -> list[DmResult]:
    """Start the schedulers as the runner does, at `when`; the personal catch-up's results."""
    sched = await scheduler_module.start(bot, clock=lambda: when)
    try:
        jobs = personal_scheduler.running(bot)
        assert jobs is not None
        assert jobs._catch_up is not None
        return await jobs._catch_up
    finally:
        await scheduler_module.shutdown(sched)


async def set_me(e2e: E2E, time: str = "07:00") -> datetime:
    """`/digest me` for the member; the slot of their next DM."""
    answer = await e2e.slash("digest me", time=time, timezone="Asia/Shanghai")
    assert answer.ephemeral
    assert ":F>" in answer.text()
    configured = await e2e.bot.app.personal.get(e2e.member.id)
    assert configured is not None
    return schedule.next_post(utc_now(), daily_time(configured))


async def test_dm_sent_once_across_restarts(start_bot: StartBot, fake_discord: FakeDiscord) -> None:
    bot = await start_bot()
    e2e = E2E(fake_discord, bot)
    await bot.app.subscriptions.subscribe(e2e.guild.id, e2e.member.id, "reasoning", utc_now())
    slot = await set_me(e2e)
    later = slot + timedelta(hours=3)  # down at the slot, back the same local day
    outcomes = []
    for _restart in range(2):
        await stop_bot(bot)
        bot = await start_bot()
        outcomes.append([r.outcome for r in await catch_up(bot, later)])
    assert outcomes == [["posted"], ["already-posted"]]

    [opened, *_] = fake_discord.requests_to("POST", r"/users/@me/channels$")
    assert opened.body == {"recipient_id": str(e2e.member.id)}
    [dm] = fake_discord.dms_to(e2e.member)
    sends = fake_discord.requests_to("POST", rf"/channels/{dm['channel_id']}/messages$")
    assert len(sends) == 1
    body = sends[0].body
    local_day = slot.astimezone(ZoneInfo("Asia/Shanghai")).date()
    assert body["nonce"] == personal_nonce(e2e.member.id, local_day)
    assert body["enforce_nonce"] is True
    assert body["allowed_mentions"]["parse"] == []
    assert not body["allowed_mentions"].get("users")
    assert "Your paper digest" in dm["content"]
    assert dm["embeds"]
    assert "guild_id" not in dm


async def test_closed_dms_switch_off_and_the_reader_is_told_once(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    bot = await start_bot()
    e2e = E2E(fake_discord, bot)
    await bot.app.subscriptions.subscribe(e2e.guild.id, e2e.member.id, "reasoning", utc_now())
    slot = await set_me(e2e)
    fake_discord.close_dms(e2e.member)

    first = await catch_up(bot, slot + timedelta(minutes=1))
    again = await catch_up(bot, slot + timedelta(days=1, minutes=1))

    assert [r.outcome for r in first] == ["dms-closed"]
    assert again == []  # switched off: nothing retries it
    assert fake_discord.dms_to(e2e.member) == []
    configured = await bot.app.personal.get(e2e.member.id)
    assert configured is not None
    assert not configured.enabled
    # The reader's next command (any command) carries the notice, once.
    told = await e2e.slash("subscriptions")
    await told.wait_until(lambda: bool(told.followups))
    [notice] = told.followups
    assert "DMs are closed" in notice["content"]
    assert notice["flags"] & 64  # ephemeral
    quiet = await e2e.slash("subscriptions")
    await quiet.settle()
    assert quiet.followups == []


async def test_closed_on_open_is_handled_too(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    bot = await start_bot()
    e2e = E2E(fake_discord, bot)
    slot = await set_me(e2e)
    fake_discord.close_dms(e2e.member, on="open")
    assert [r.outcome for r in await catch_up(bot, slot + timedelta(minutes=1))] == ["dms-closed"]
    assert fake_discord.requests_to("POST", r"/channels/\d+/messages$") == []


async def test_me_off_and_bad_time(e2e: E2E) -> None:
    bad = await e2e.slash("digest me", time="25:99")
    assert bad.ephemeral
    assert "09:00" in bad.text()
    assert await e2e.bot.app.personal.get(e2e.member.id) is None
    await e2e.slash("digest me", time="08:00")
    off = await e2e.slash("digest me", time="off")
    assert off.ephemeral
    assert "off" in off.text()
    configured = await e2e.bot.app.personal.get(e2e.member.id)
    assert configured is not None
    assert not configured.enabled
    choices = await e2e.autocomplete("digest me", focused="time", time="o")
    assert [c["value"] for c in choices] == ["off"]


async def test_me_in_chinese(e2e: E2E) -> None:
    answer = await e2e.slash("digest me", time="08:00", locale="zh-CN")
    assert "你的个人摘要" in answer.text()
    assert "/subscribe" in answer.text()  # follows no topic yet


async def test_start_up_dm_skips_what_the_server_digest_just_posted(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    """Both due while the bot was down: the server post goes first, and the
    DM leaves out its papers (the reader follows topics in that server)."""
    bot = await start_bot()
    e2e = E2E(fake_discord, bot)
    await bot.app.subscriptions.subscribe(e2e.guild.id, e2e.member.id, "reasoning", utc_now())
    await e2e.slash(
        "digest setup",
        user=e2e.admin,
        options={"channel": e2e.channel},
        time="07:00",
        timezone="Asia/Shanghai",
        count=5,
    )
    slot = await set_me(e2e)
    assert [r.outcome for r in await catch_up(bot, slot + timedelta(hours=2))] == ["posted"]
    [post] = fake_discord.channel_history(e2e.channel)
    [dm] = fake_discord.dms_to(e2e.member)
    posted = {e["title"] for e in post["embeds"]}
    assert len(posted) == 5
    assert not posted & {e["title"] for e in dm["embeds"]}
