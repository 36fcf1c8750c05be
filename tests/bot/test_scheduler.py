"""The digest scheduler: cron jobs per server timezone, rebuilt from SQLite,
catch-up after downtime, paced sends, Discord errors mapped for the service."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import discord
import numpy as np
import pytest
from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, JobExecutionEvent
from apscheduler.triggers.cron import CronTrigger

from paperbot.bot import scheduler as scheduler_module
from paperbot.bot.scheduler import DigestScheduler, SendPacer, delivery_error
from paperbot.config import Settings
from paperbot.core import schedule
from paperbot.core.digest import TopicDemand
from paperbot.services.digest import DigestService, daily_time
from paperbot.storage import papers
from paperbot.storage.db import Database
from tests.support.digest import FakeDiscord, ensure_digest_schema

# 15:00 in Shanghai, 02:00 in New York (the day before), 07:00 UTC.
NOW = datetime(2026, 11, 30, 7, 0, tzinfo=UTC)


@pytest.fixture
async def service(loaded_db: Database) -> DigestService:
    await ensure_digest_schema(loaded_db)
    ids = np.array([p.id for p in await papers.list_papers(loaded_db)][:30], dtype=np.int64)

    async def audience(guild_id: int) -> Sequence[TopicDemand]:
        return [TopicDemand("rl", (guild_id + 1,), ids, np.full(len(ids), 0.7))]

    return DigestService(loaded_db, Settings(), audience)


async def configure(service: DigestService, guild: int, at: str, tz: str, since: datetime) -> None:
    await service.setup(
        guild_id=guild,
        channel_id=guild * 10,
        time_text=at,
        timezone_text=tz,
        count=2,
        user_id=1,
        now=since,
    )


@pytest.fixture
async def started(service: DigestService) -> Any:
    running: list[DigestScheduler] = []

    async def start(discord_: FakeDiscord, now: datetime = NOW) -> DigestScheduler:
        sched = DigestScheduler(service, discord_, clock=lambda: now)
        await sched.start()
        running.append(sched)
        return sched

    yield start
    for sched in running:
        await sched.shutdown()


async def test_jobs_are_rebuilt_from_sqlite_in_each_timezone(
    service: DigestService, started: Any
) -> None:
    since = NOW - timedelta(days=3)
    await configure(service, 1, "09:00", "Asia/Shanghai", since)
    await configure(service, 2, "08:30", "America/New_York", since)
    await configure(service, 3, "07:00", "UTC", since)
    await service.off(3, since)
    sched = await started(FakeDiscord(now=NOW))
    assert sched.scheduler.get_job("digest:3") is None
    for guild in (1, 2):
        job = sched.scheduler.get_job(f"digest:{guild}")
        assert isinstance(job.trigger, CronTrigger)
        configured = await service.get_settings(guild)
        assert configured is not None
        assert str(job.trigger.timezone) == configured.timezone
        # What /digest setup shows is what APScheduler will do.
        expected = schedule.next_post(datetime.now(UTC), daily_time(configured))
        assert job.next_run_time == expected


async def test_setup_and_off_reschedule_at_once(service: DigestService, started: Any) -> None:
    sched = await started(FakeDiscord(now=NOW))
    assert sched.next_run_time(5) is None
    await configure(service, 5, "10:00", "Europe/London", NOW)
    configured = await service.get_settings(5)
    assert configured is not None
    sched.schedule(configured)
    assert sched.next_run_time(5) is not None
    await service.off(5, NOW)
    configured = await service.get_settings(5)
    assert configured is not None
    sched.schedule(configured)  # a disabled schedule removes the job
    assert sched.next_run_time(5) is None


async def test_start_up_posts_missed_digests_once(service: DigestService, started: Any) -> None:
    since = NOW - timedelta(days=3)
    await configure(service, 1, "09:00", "Asia/Shanghai", since)  # missed at 01:00 UTC
    await configure(service, 2, "20:00", "Asia/Shanghai", since)  # still to come today
    await configure(service, 3, "23:30", "Europe/London", since)  # its day ended at 00:00
    fake = FakeDiscord(now=NOW)
    sched = await started(fake)
    assert sched._catch_up is not None
    results = await sched._catch_up
    by_guild = {r.guild_id: r.outcome for r in results}
    assert by_guild == {1: "posted", 2: "not-due", 3: "not-due"}
    assert [m.channel_id for m in fake.messages] == [10]
    # A second restart the same day does not post again.
    again = await started(fake)
    assert again._catch_up is not None
    await again._catch_up
    assert len(fake.messages) == 1


async def test_a_due_job_fires_through_apscheduler(service: DigestService, started: Any) -> None:
    slot = datetime(2026, 11, 30, 1, 0, tzinfo=UTC)
    await configure(service, 1, "09:00", "Asia/Shanghai", slot - timedelta(days=1))
    fake = FakeDiscord(now=slot)
    sched = await started(fake, now=slot)
    assert sched._catch_up is not None
    await sched._catch_up  # posts it: the clock says it is the slot
    assert len(fake.messages) == 1
    # Fire the real job now, as the cron trigger would: it must not post twice.
    executed: asyncio.Queue[JobExecutionEvent] = asyncio.Queue()
    sched.scheduler.add_listener(executed.put_nowait, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
    sched.scheduler.modify_job("digest:1", next_run_time=datetime.now(UTC))
    event = await asyncio.wait_for(executed.get(), timeout=5)
    assert event.job_id == "digest:1"
    assert event.exception is None
    assert event.retval.outcome == "already-posted"
    assert len(fake.messages) == 1


async def test_many_servers_due_at_once_are_paced(service: DigestService) -> None:
    since = NOW - timedelta(days=1)
    for guild in range(1, 13):
        await configure(service, guild, "09:00", "Asia/Shanghai", since)
    waits: list[float] = []
    clock = [0.0]

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)
        clock[0] += seconds

    pacer = SendPacer(0.25, monotonic=lambda: clock[0], sleep=fake_sleep)
    fake = FakeDiscord(now=NOW)

    class Paced:
        async def send(self, channel_id: int, message: Any, nonce: str) -> int:
            await pacer.wait()
            return await fake.send(channel_id, message, nonce)

        async def history(self, *args: Any) -> Any:
            return await fake.history(*args)

    sched = DigestScheduler(service, Paced(), clock=lambda: NOW)
    results = await asyncio.gather(*(sched.run(g) for g in range(1, 13)))
    assert [r.outcome for r in results] == ["posted"] * 12
    assert len(fake.messages) == 12
    # Eleven gaps of a quarter second: 12 sends over ~3 s, not one burst.
    assert waits == pytest.approx([0.25] * 11)


def _http_error(cls: type[discord.HTTPException], status: int) -> discord.HTTPException:
    response = SimpleNamespace(status=status, reason="x")
    return cls(response, {"code": 0, "message": "nope"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("error", "permanent", "words"),
    [
        (_http_error(discord.NotFound, 404), True, "no longer exists"),
        (_http_error(discord.Forbidden, 403), True, "lost permission"),
        (_http_error(discord.HTTPException, 400), True, "refused"),
        (_http_error(discord.DiscordServerError, 503), False, "could not be reached"),
        (_http_error(discord.HTTPException, 429), False, "could not be reached"),
        (TimeoutError(), False, "could not be reached"),
    ],
)
def test_discord_errors_become_delivery_errors(
    error: BaseException, permanent: bool, words: str
) -> None:
    mapped = delivery_error(error, 42)
    assert mapped.permanent is permanent
    assert words in str(mapped)


async def test_a_failing_server_does_not_stop_the_scheduler(
    service: DigestService, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*_args: Any) -> Any:
        raise RuntimeError("bug")

    monkeypatch.setattr(service, "run_scheduled", broken)
    sched = DigestScheduler(service, FakeDiscord(now=NOW), clock=lambda: NOW)
    result = await sched.run(1)
    assert result.outcome == "failed"


def test_running_is_none_for_a_bot_without_a_scheduler() -> None:
    bot = discord.Client(intents=discord.Intents.none())
    assert scheduler_module.running(bot) is None
    assert schedule.digest_nonce(1, date(2026, 1, 1))  # module wiring sanity
