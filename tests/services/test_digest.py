"""The digest use-cases against a real SQLite file and a fake Discord:
exactly one post a day across crashes, failures told to admins, no repeats."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from paperbot.config import Settings
from paperbot.core.digest import TopicDemand
from paperbot.core.schedule import ScheduleError, digest_nonce
from paperbot.services import digest as service_module
from paperbot.services.digest import DeliveryError, DigestInputError, DigestService
from paperbot.storage import digests as store
from paperbot.storage import papers
from paperbot.storage.db import Database
from tests.support.digest import Crash, FakeDiscord, ensure_digest_schema

GUILD = 111
CHANNEL = 222
ADMIN = 333
SUBSCRIBERS = (10**17 + 1, 10**17 + 2)
# 09:00 in Shanghai is 01:00 UTC.
SLOT = datetime(2026, 11, 30, 1, 0, tzinfo=UTC)
DAY = date(2026, 11, 30)


def at(minutes: float) -> datetime:
    """An instant relative to today's slot."""
    return SLOT + timedelta(minutes=minutes)


@pytest.fixture
async def digest_db(loaded_db: Database) -> Database:
    await ensure_digest_schema(loaded_db)
    return loaded_db


@pytest.fixture
async def service(digest_db: Database) -> DigestService:
    ids = [p.id for p in await papers.list_papers(digest_db)]

    async def audience(guild_id: int) -> Sequence[TopicDemand]:
        assert guild_id == GUILD
        chosen = np.array(ids[:40], dtype=np.int64)
        return [TopicDemand("scaling laws", SUBSCRIBERS, chosen, np.linspace(1, 0.5, 40))]

    return DigestService(digest_db, Settings(), audience)


async def set_up(service: DigestService, now: datetime, time_text: str = "09:00") -> None:
    await service.setup(
        guild_id=GUILD,
        channel_id=CHANNEL,
        time_text=time_text,
        timezone_text="Asia/Shanghai",
        count=5,
        user_id=ADMIN,
        now=now,
    )


def restart(service: DigestService) -> DigestService:
    """A new process: same database, nothing in memory."""
    return DigestService(service.db, service.settings, service.audience)


async def crash_in(
    service: DigestService,
    monkeypatch: pytest.MonkeyPatch,
    discord: FakeDiscord,
    owner: object,
    name: str,
) -> None:
    """Set the digest up, then run the day's post with `owner.name` crashing."""
    await set_up(service, at(-600))

    async def die(*_args: object) -> None:
        raise Crash

    monkeypatch.setattr(owner, name, die)
    with pytest.raises(Crash):
        await service.run_scheduled(GUILD, discord, at(0))
    monkeypatch.undo()


@pytest.mark.parametrize(
    ("time_text", "tz", "count", "error"),
    [
        ("25:00", "UTC", 5, "not a valid time"),
        ("09:00", "Mars/Base", 5, "not a timezone"),
        ("09:00", "UTC", 11, "between 1 and 10"),
        ("09:00", "UTC", 0, "between 1 and 10"),
    ],
)
async def test_setup_refuses_bad_input_and_stores_nothing(
    service: DigestService, time_text: str, tz: str, count: int, error: str
) -> None:
    with pytest.raises(ScheduleError, match=error):
        await service.setup(
            guild_id=GUILD,
            channel_id=CHANNEL,
            time_text=time_text,
            timezone_text=tz,
            count=count,
            user_id=ADMIN,
            now=at(-60),
        )
    assert await service.get_settings(GUILD) is None


async def test_setup_uses_configured_defaults(service: DigestService) -> None:
    saved, next_post = await service.setup(
        guild_id=GUILD,
        channel_id=CHANNEL,
        time_text="09:00",
        timezone_text=None,
        count=None,
        user_id=ADMIN,
        now=datetime(2026, 11, 30, 8, 0, tzinfo=UTC),
    )
    assert saved.timezone == "UTC"
    assert saved.count == 5
    assert next_post == datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


async def test_scheduled_post_goes_out_once(service: DigestService) -> None:
    discord = FakeDiscord(now=at(0))
    await set_up(service, at(-600))
    result = await service.run_scheduled(GUILD, discord, at(0))
    assert result.outcome == "posted"
    assert result.local_date == DAY
    [sent] = discord.in_channel(CHANNEL)
    assert sent.nonce == digest_nonce(GUILD, DAY)
    assert "2026-11-30" in sent.message.content
    assert sent.message.mention_user_ids == SUBSCRIBERS
    assert len(sent.message.embeds) == 5
    # The job firing again (a second trigger, a restart) posts nothing more.
    again = await restart(service).run_scheduled(GUILD, discord, at(30))
    assert again.outcome == "already-posted"
    assert len(discord.messages) == 1


async def test_a_time_already_past_today_starts_tomorrow(service: DigestService) -> None:
    discord = FakeDiscord(now=at(60))
    _, next_post = await service.setup(
        guild_id=GUILD,
        channel_id=CHANNEL,
        time_text="09:00",
        timezone_text="Asia/Shanghai",
        count=3,
        user_id=ADMIN,
        now=at(60),
    )
    assert next_post == at(24 * 60)
    assert (await service.run_scheduled(GUILD, discord, at(61))).outcome == "not-due"
    assert (await service.run_scheduled(GUILD, discord, at(24 * 60))).outcome == "posted"


async def test_changing_the_time_after_todays_post_does_not_post_again(
    service: DigestService,
) -> None:
    discord = FakeDiscord(now=at(0))
    await set_up(service, at(-600))
    await service.run_scheduled(GUILD, discord, at(0))
    # At 10:00 the admin moves the post to 18:00 the same day.
    _, next_post = await service.setup(
        guild_id=GUILD,
        channel_id=CHANNEL,
        time_text="18:00",
        timezone_text="Asia/Shanghai",
        count=5,
        user_id=ADMIN,
        now=at(60),
    )
    assert next_post == at(9 * 60 + 24 * 60)  # tomorrow 18:00
    result = await service.run_scheduled(GUILD, discord, at(9 * 60))
    assert result.outcome in ("already-posted", "not-due")
    assert len(discord.messages) == 1


async def test_missed_digest_is_posted_later_the_same_local_day(service: DigestService) -> None:
    discord = FakeDiscord(now=at(6 * 60))
    await set_up(service, at(-24 * 60))
    # The bot was down at 09:00; it starts at 15:00 Shanghai time.
    result = await service.run_scheduled(GUILD, discord, at(6 * 60))
    assert result.outcome == "posted"
    assert result.local_date == DAY
    # Down until after local midnight instead: that day is gone, no late post.
    discord2 = FakeDiscord(now=at(24 * 60 - 30))
    tomorrow_before_slot = at(24 * 60 - 30)  # 08:30 the next day
    assert (await service.run_scheduled(GUILD, discord2, tomorrow_before_slot)).outcome == (
        "not-due"
    )
    assert discord2.messages == []


@pytest.mark.parametrize("restart_after", [timedelta(seconds=40), timedelta(minutes=30)])
async def test_crash_between_send_and_confirm_never_posts_twice(
    service: DigestService, restart_after: timedelta
) -> None:
    discord = await crash_after_send(service)
    post = await store.scheduled_post(service.db, GUILD, DAY)
    assert post is not None
    assert post.state == "sent"
    # Restarted: within the nonce window the re-send is deduplicated by
    # Discord; after it, the channel history shows the post.
    discord.now = at(0) + restart_after
    revived = restart(service)
    await revived.recover(discord, discord.now)
    result = await revived.run_scheduled(GUILD, discord, discord.now)
    assert result.outcome == "already-posted"
    assert len(discord.messages) == 1
    confirmed = await store.scheduled_post(service.db, GUILD, DAY)
    assert confirmed is not None
    assert confirmed.state == "confirmed"
    assert confirmed.message_id == discord.messages[0].id


async def test_crash_after_marking_sent_but_before_the_request(
    service: DigestService, monkeypatch: pytest.MonkeyPatch
) -> None:
    discord = FakeDiscord(now=at(0))
    await crash_in(service, monkeypatch, discord, discord, "send")
    discord.now = at(30)  # outside the nonce window: history decides
    results = await restart(service).recover(discord, at(30))
    assert [r.outcome for r in results] == ["posted"]
    assert len(discord.messages) == 1


async def test_crash_right_after_the_claim(
    service: DigestService, monkeypatch: pytest.MonkeyPatch
) -> None:
    discord = FakeDiscord(now=at(0))
    await crash_in(service, monkeypatch, discord, service_module.store, "mark_sent")
    post = await store.scheduled_post(service.db, GUILD, DAY)
    assert post is not None
    assert post.state == "claimed"
    results = await restart(service).recover(discord, at(5))
    assert [r.outcome for r in results] == ["posted"]
    assert len(discord.messages) == 1


async def test_an_unsent_claim_expires_when_its_day_ended(
    service: DigestService, monkeypatch: pytest.MonkeyPatch
) -> None:
    discord = FakeDiscord(now=at(0))
    await crash_in(service, monkeypatch, discord, service_module.store, "mark_sent")
    results = await restart(service).recover(discord, at(20 * 60))
    assert [r.outcome for r in results] == ["expired"]
    assert discord.messages == []
    assert await store.posted_ids(service.db, CHANNEL) == []  # its papers are free again


@pytest.mark.parametrize(
    ("broken", "text"), [("gone", "no longer exists"), ("forbidden", "may no longer post")]
)
async def test_lost_channel_is_recorded_and_told_once(
    service: DigestService, broken: str, text: str
) -> None:
    discord = FakeDiscord(now=at(0))
    getattr(discord, broken).add(CHANNEL)
    await set_up(service, at(-600))
    result = await service.run_scheduled(GUILD, discord, at(0))
    assert result.outcome == "failed"
    assert await store.posted_ids(service.db, CHANNEL) == []
    failure = await service.take_failure(GUILD)
    assert failure is not None
    assert text in failure[0]
    assert "2026-11-30" in failure[0]
    assert await service.take_failure(GUILD) is None  # told once
    # No retry loop: the job firing again the same day does nothing.
    assert (await service.run_scheduled(GUILD, discord, at(5))).outcome == "already-posted"
    assert discord.sends == 1


async def test_setup_after_a_failure_lets_the_day_post(service: DigestService) -> None:
    discord = FakeDiscord(now=at(0))
    discord.forbidden.add(CHANNEL)
    await set_up(service, at(-600))
    await service.run_scheduled(GUILD, discord, at(0))
    discord.forbidden.clear()
    await set_up(service, at(10), time_text="12:00")  # fixed, new time later today
    assert (await service.run_scheduled(GUILD, discord, at(180))).outcome == "posted"
    assert len(discord.messages) == 1


async def test_transient_failures_are_retried_a_bounded_number_of_times(
    service: DigestService,
) -> None:
    discord = FakeDiscord(now=at(0), flaky=10)
    await set_up(service, at(-600))
    assert (await service.run_scheduled(GUILD, discord, at(0))).outcome == "pending"
    outcomes = []
    for minutes in (15, 30, 45, 60):
        discord.now = at(minutes)
        outcomes += [r.outcome for r in await service.recover(discord, at(minutes))]
    assert outcomes == ["pending", "pending", "failed"]
    assert discord.messages == []
    failure = await service.take_failure(GUILD)
    assert failure is not None
    assert "3 attempts" in failure[0]


async def test_transient_failure_then_success(service: DigestService) -> None:
    discord = FakeDiscord(now=at(0), flaky=1)
    await set_up(service, at(-600))
    assert (await service.run_scheduled(GUILD, discord, at(0))).outcome == "pending"
    discord.now = at(15)
    assert [r.outcome for r in await service.recover(discord, at(15))] == ["posted"]
    assert len(discord.messages) == 1


async def test_now_is_an_extra_post_and_never_repeats_papers(service: DigestService) -> None:
    discord = FakeDiscord(now=at(-120))
    await set_up(service, at(-600))
    extra = await service.post_now(GUILD, discord, at(-120))
    assert extra.outcome == "posted"
    scheduled = await service.run_scheduled(GUILD, discord, at(0))
    assert scheduled.outcome == "posted"  # /digest now is not the day's post
    first, second = discord.messages
    assert "Extra" in first.message.content
    assert "Daily" in second.message.content
    titles = [[e.title for e in m.message.embeds] for m in discord.messages]
    assert not set(titles[0]) & set(titles[1])


async def test_now_without_setup_is_a_clear_error(service: DigestService) -> None:
    with pytest.raises(DigestInputError, match="/digest setup"):
        await service.post_now(GUILD, FakeDiscord(now=at(0)), at(0))


async def test_off_stops_posting_and_setup_resumes(service: DigestService) -> None:
    discord = FakeDiscord(now=at(0))
    await set_up(service, at(-600))
    assert await service.off(GUILD, at(-300))
    assert (await service.run_scheduled(GUILD, discord, at(0))).outcome == "not-configured"
    assert await service.enabled() == []
    kept = await service.get_settings(GUILD)
    assert kept is not None
    assert kept.channel_id == CHANNEL
    await set_up(service, at(-1))
    assert (await service.run_scheduled(GUILD, discord, at(0))).outcome == "posted"


async def test_nothing_left_is_posted_honestly(service: DigestService) -> None:
    everything = [p.id for p in await papers.list_papers(service.db)]
    await set_up(service, at(-600))
    await store.claim(
        service.db,
        guild_id=GUILD,
        channel_id=CHANNEL,
        kind="manual",
        local_date=DAY,
        nonce="m1",
        message=(await service.preview(GUILD, at(-600))).message,
        paper_ids=everything,
        now=at(-600),
        deadline=at(600),
    )
    discord = FakeDiscord(now=at(0))
    assert (await service.run_scheduled(GUILD, discord, at(0))).outcome == "posted"
    [sent] = discord.messages
    assert sent.message.embeds == ()
    assert "already been posted" in sent.message.content
    assert sent.message.mention_user_ids == ()


async def test_preview_stores_nothing_and_matches_the_next_post(service: DigestService) -> None:
    await set_up(service, at(-600))
    preview = await service.preview(GUILD, at(-60))
    assert len(preview.plan.picks) == 5
    assert preview.channel_id == CHANNEL
    assert await store.posted_ids(service.db, CHANNEL) == []
    discord = FakeDiscord(now=at(0))
    await service.run_scheduled(GUILD, discord, at(0))
    assert [e.title for e in discord.messages[0].message.embeds] == [
        e.title for e in preview.message.embeds
    ]


async def test_dst_spring_forward_posts_once_that_day(service: DigestService) -> None:
    discord = FakeDiscord(now=datetime(2026, 3, 8, 7, 30, tzinfo=UTC))
    await service.setup(
        guild_id=GUILD,
        channel_id=CHANNEL,
        time_text="02:30",
        timezone_text="America/New_York",
        count=2,
        user_id=ADMIN,
        now=datetime(2026, 3, 1, tzinfo=UTC),
    )
    # 02:30 does not exist that Sunday: the post goes out at 03:30 EDT.
    result = await service.run_scheduled(GUILD, discord, datetime(2026, 3, 8, 7, 30, tzinfo=UTC))
    assert result.outcome == "posted"
    assert result.local_date == date(2026, 3, 8)


async def test_dst_fall_back_fold_posts_once(service: DigestService) -> None:
    await service.setup(
        guild_id=GUILD,
        channel_id=CHANNEL,
        time_text="01:30",
        timezone_text="America/New_York",
        count=2,
        user_id=ADMIN,
        now=datetime(2026, 10, 1, tzinfo=UTC),
    )
    first = datetime(2026, 11, 1, 5, 30, tzinfo=UTC)  # 01:30 EDT
    second = datetime(2026, 11, 1, 6, 30, tzinfo=UTC)  # 01:30 EST, the same local date
    discord = FakeDiscord(now=first)
    assert (await service.run_scheduled(GUILD, discord, first)).outcome == "posted"
    discord.now = second
    assert (await service.run_scheduled(GUILD, discord, second)).outcome == "already-posted"
    assert len(discord.messages) == 1


async def crash_after_send(service: DigestService) -> FakeDiscord:
    discord = FakeDiscord(now=at(0), crash_after_send=True)
    await set_up(service, at(-600))
    with pytest.raises(Crash):
        await service.run_scheduled(GUILD, discord, at(0))
    return discord


async def test_history_lost_after_a_crash_never_reposts_nor_repeats(
    service: DigestService,
) -> None:
    discord = await crash_after_send(service)
    sent_papers = await store.posted_ids(service.db, CHANNEL)
    discord.forbidden.add(CHANNEL)  # read history fails for good
    results = await restart(service).recover(discord, at(30))
    assert [r.outcome for r in results] == ["failed"]
    assert len(discord.messages) == 1
    # It may be out there: its papers stay seen, and the admins hear about it.
    assert await store.posted_ids(service.db, CHANNEL) == sent_papers
    failure = await service.take_failure(GUILD)
    assert failure is not None
    assert "may not have been posted" in failure[0]


async def test_transient_history_error_is_retried_while_the_day_lasts(
    service: DigestService, monkeypatch: pytest.MonkeyPatch
) -> None:
    discord = await crash_after_send(service)

    async def unreachable(*_args: object) -> list[object]:
        raise DeliveryError("Discord answered 503", permanent=False)

    monkeypatch.setattr(discord, "history", unreachable)
    revived = restart(service)
    assert [r.outcome for r in await revived.recover(discord, at(30))] == ["pending"]
    monkeypatch.undo()
    assert [r.outcome for r in await revived.recover(discord, at(40))] == ["posted"]
    assert len(discord.messages) == 1


async def test_resolve_leaves_a_post_in_flight_alone(service: DigestService) -> None:
    await set_up(service, at(-600))
    seen: list[list[str]] = []

    class Slow(FakeDiscord):
        async def send(self, channel_id: int, message: Any, nonce: str) -> int:
            # While this send is in flight, the periodic resolver runs.
            seen.append([r.outcome for r in await service.recover(self, at(0))])
            return await super().send(channel_id, message, nonce)

    discord = Slow(now=at(0))
    assert (await service.run_scheduled(GUILD, discord, at(0))).outcome == "posted"
    assert seen == [["pending"]]
    assert len(discord.messages) == 1
    assert discord.sends == 1


async def test_an_empty_database_is_not_called_all_posted(db: Database) -> None:
    async def nobody(_guild_id: int) -> Sequence[TopicDemand]:
        return []

    empty = DigestService(db, Settings(), nobody)
    preview = await empty.preview(GUILD, at(0))
    assert preview.corpus_size == 0
    assert preview.plan.nothing_left
    assert "No papers are loaded" in preview.message.content
    assert "already been posted" not in preview.message.content
