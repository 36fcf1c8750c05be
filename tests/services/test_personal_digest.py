"""The personal daily digest by DM against a real SQLite file and a fake
Discord: one DM a day per reader across servers, never a paper twice,
closed DMs switch it off once, crashes never double a DM."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from paperbot.core.personal import personal_nonce
from paperbot.services.app import App
from paperbot.services.personal_digest import DMS_CLOSED_NOTICE
from paperbot.storage import personal as store
from tests.support.digest import Crash
from tests.support.personal import FakeDms, dm_channel

READER = 10**17 + 7
OTHER = 10**17 + 8
GUILD_A, GUILD_B = 111, 112
CHANNEL_A = 222
# 09:00 in Shanghai is 01:00 UTC.
SLOT = datetime(2026, 11, 30, 1, 0, tzinfo=UTC)
DAY = date(2026, 11, 30)


def at(minutes: float) -> datetime:
    return SLOT + timedelta(minutes=minutes)


async def follow(app: App, guild: int, user: int, *topics: str) -> None:
    for topic in topics:
        await app.subscriptions.subscribe(guild, user, topic, at(-2000))


async def switch_on(app: App, user: int = READER, when: datetime | None = None) -> None:
    await app.personal.set_time(
        user_id=user,
        guild_id=GUILD_A,
        time_text="09:00",
        timezone_text="Asia/Shanghai",
        now=when or at(-1440),
    )


def paper_titles(fake: FakeDms, user: int) -> list[str]:
    return [e.title for m in fake.dms_to(user) for e in m.embeds]


async def test_one_dm_a_day_with_the_readers_topics(loaded_app: App) -> None:
    await follow(loaded_app, GUILD_A, READER, "scaling laws")
    await switch_on(loaded_app)
    fake = FakeDms(now=SLOT)

    first = await loaded_app.personal.run_scheduled(READER, fake, SLOT)
    again = await loaded_app.personal.run_scheduled(READER, fake, at(5))

    assert first.outcome == "posted"
    assert first.papers == loaded_app.settings.digest.default_count
    assert again.outcome == "already-posted"
    [dm] = fake.dms_to(READER)
    assert dm.content.startswith("📬 **Your paper digest")
    assert dm.mention_user_ids == ()
    assert "scaling" in " ".join(e.fields[-1].value.lower() for e in dm.embeds)
    assert fake.messages[0].nonce == personal_nonce(READER, DAY)


async def test_several_servers_one_dm_with_every_servers_topics(loaded_app: App) -> None:
    await follow(loaded_app, GUILD_A, READER, "scaling laws")
    await follow(loaded_app, GUILD_B, READER, "speculative decoding", "Chinchilla")
    demands = await loaded_app.subscriptions.user_demands(READER)
    # Chinchilla is a synonym of scaling laws: two topics, not three.
    assert sorted(d.topic.split(" · ")[0] for d in demands) == [
        "Scaling laws",
        "Speculative decoding",
    ]
    await switch_on(loaded_app)
    fake = FakeDms(now=SLOT)
    await loaded_app.personal.run_scheduled(READER, fake, SLOT)
    await loaded_app.personal.run_scheduled(READER, fake, at(1))
    assert len(fake.dms_to(READER)) == 1
    topics = " ".join(e.fields[-1].value for e in fake.dms_to(READER)[0].embeds)
    assert "Speculative decoding" in topics
    assert "Scaling laws" in topics


async def test_never_a_paper_twice_over_many_days(loaded_app: App) -> None:
    await follow(loaded_app, GUILD_A, READER, "scaling laws", "MoE")
    await switch_on(loaded_app)
    fake = FakeDms(now=SLOT)
    for day in range(40):
        fake.now = SLOT + timedelta(days=day)
        await loaded_app.personal.run_scheduled(READER, fake, fake.now)
    titles = paper_titles(fake, READER)
    assert len(titles) > 40
    assert len(titles) == len(set(titles))


async def test_papers_from_a_server_digest_they_follow_are_not_sent_again(
    loaded_app: App,
) -> None:
    await follow(loaded_app, GUILD_A, READER, "scaling laws")
    await loaded_app.digest.setup(
        guild_id=GUILD_A,
        channel_id=CHANNEL_A,
        time_text="08:00",
        timezone_text="Asia/Shanghai",
        count=5,
        user_id=1,
        now=at(-1440),
    )
    fake = FakeDms(now=SLOT)
    posted = await loaded_app.digest.run_scheduled(GUILD_A, fake, SLOT)
    assert posted.outcome == "posted"
    channel_titles = {e.title for m in fake.in_channel(CHANNEL_A) for e in m.message.embeds}

    await switch_on(loaded_app)
    await loaded_app.personal.run_scheduled(READER, fake, at(1))

    assert channel_titles
    assert not channel_titles & set(paper_titles(fake, READER))


async def test_dms_closed_on_open_switches_off_once_and_tells(loaded_app: App) -> None:
    await follow(loaded_app, GUILD_A, READER, "scaling laws")
    await switch_on(loaded_app)
    fake = FakeDms(now=SLOT, closed={READER})

    result = await loaded_app.personal.run_scheduled(READER, fake, SLOT)
    later = [
        await loaded_app.personal.run_scheduled(READER, fake, SLOT + timedelta(days=d))
        for d in (0, 1, 2)
    ]
    await loaded_app.personal.recover(fake, SLOT + timedelta(days=2))

    assert result.outcome == "dms-closed"
    assert [r.outcome for r in later] == ["not-configured"] * 3
    assert fake.opened == [READER]  # no retry loop
    configured = await loaded_app.personal.get(READER)
    assert configured is not None
    assert not configured.enabled
    assert await loaded_app.personal.pending_notice(READER) == DMS_CLOSED_NOTICE
    await loaded_app.personal.notice_told(READER, DMS_CLOSED_NOTICE)
    assert await loaded_app.personal.pending_notice(READER) is None
    # Nothing went out, so nothing counts as received.
    assert await store.received_ids(loaded_app._db, READER) == []


async def test_dms_closed_on_send_switches_off_and_keeps_papers_new(loaded_app: App) -> None:
    await follow(loaded_app, GUILD_A, READER, "scaling laws")
    await switch_on(loaded_app)
    fake = FakeDms(now=SLOT, closed_on_send={READER})
    result = await loaded_app.personal.run_scheduled(READER, fake, SLOT)
    assert result.outcome == "dms-closed"
    assert fake.sends == 1
    assert await store.received_ids(loaded_app._db, READER) == []
    # Setting it again drops the notice and works once DMs are open.
    await switch_on(loaded_app, when=at(10))
    assert await loaded_app.personal.pending_notice(READER) is None
    fake.closed_on_send.clear()
    fake.now = SLOT + timedelta(days=1)
    assert (await loaded_app.personal.run_scheduled(READER, fake, fake.now)).outcome == "posted"


@pytest.mark.parametrize("back_after", [timedelta(seconds=30), timedelta(minutes=40)])
async def test_crash_after_send_then_restart_sends_once(
    loaded_app: App, back_after: timedelta
) -> None:
    await follow(loaded_app, GUILD_A, READER, "scaling laws")
    await switch_on(loaded_app)
    fake = FakeDms(now=SLOT, crash_after_send=True)
    with pytest.raises(Crash):
        await loaded_app.personal.run_scheduled(READER, fake, SLOT)
    loaded_app.personal._in_flight.clear()  # the process that held it is gone

    fake.now = SLOT + back_after
    await loaded_app.personal.recover(fake, fake.now)
    await loaded_app.personal.run_scheduled(READER, fake, fake.now)

    assert len(fake.dms_to(READER)) == 1
    post = await store.day_post(loaded_app._db, READER, DAY)
    assert post is not None
    assert post.state == "confirmed"
    assert post.channel_id == dm_channel(READER)


async def test_missed_dm_caught_up_the_same_day_only(loaded_app: App) -> None:
    await follow(loaded_app, GUILD_A, READER, "scaling laws")
    await follow(loaded_app, GUILD_A, OTHER, "scaling laws")
    await switch_on(loaded_app)
    await switch_on(loaded_app, OTHER)
    fake = FakeDms(now=SLOT)
    # Down all morning: back at 14:00 Shanghai, the DM still goes out today.
    assert (await loaded_app.personal.run_scheduled(READER, fake, at(300))).outcome == "posted"
    # Down past the reader's midnight (plus grace): that day is not owed any more.
    late = SLOT + timedelta(hours=15, minutes=20)
    assert (await loaded_app.personal.run_scheduled(OTHER, fake, late)).outcome == "not-due"


async def test_off_stops_the_dm(loaded_app: App) -> None:
    await follow(loaded_app, GUILD_A, READER, "scaling laws")
    await switch_on(loaded_app)
    assert await loaded_app.personal.off(READER, at(-10))
    assert not await loaded_app.personal.off(READER, at(-9))
    fake = FakeDms(now=SLOT)
    assert (await loaded_app.personal.run_scheduled(READER, fake, SLOT)).outcome == (
        "not-configured"
    )
    assert fake.messages == []
