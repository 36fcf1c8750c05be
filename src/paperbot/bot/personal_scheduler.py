"""The personal digest's jobs: one APScheduler `CronTrigger` per reader, in
their timezone, on the server digest's scheduler and send pacer.

`start(bot, digest_scheduler)` (called by `bot.scheduler.start`) rebuilds
the jobs from SQLite, resolves DMs a crash left open and sends the DMs
missed while the bot was down (only while the reader's local day lasts).
`/digest me` reschedules through `running(bot)`.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from apscheduler.triggers.interval import IntervalTrigger

from paperbot.bot.daily_jobs import next_daily_run, place_daily, remove_daily
from paperbot.clock import utc_now
from paperbot.core.personal import PersonalSettings
from paperbot.core.render import MessageData
from paperbot.services.digest import ChannelMessage, DeliveryError, DigestTransport
from paperbot.services.personal_digest import DmResult, DmsClosed, DmTransport

if TYPE_CHECKING:
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    from paperbot.bot.scheduler import DigestScheduler
    from paperbot.services.personal_digest import PersonalDigestService

log = logging.getLogger(__name__)

# Discord's "Cannot send messages to this user": DMs closed, or no shared server.
CANNOT_DM = 50007
RESOLVE_EVERY_MINUTES = 10
_JOB_PREFIX = "dm:"

Clock = Callable[[], datetime]


class DiscordDmTransport:
    """`DmTransport` over discord.py: opens the DM channel, then sends and
    reads history like a server post (same pacer, same nonce handling)."""

    def __init__(self, bot: discord.Client, channels: DigestTransport) -> None:
        self.bot = bot
        self.channels = channels

    async def open_dm(self, user_id: int) -> int:
        try:
            # `Client.create_dm` sends the id as a JSON number; Discord's API
            # spec types a snowflake as a string, so send it as one.
            channel = await self.bot.http.start_private_message(str(user_id))
        except (discord.HTTPException, aiohttp.ClientError, TimeoutError, OSError) as exc:
            raise dm_error(exc) from exc
        return int(channel["id"])

    async def send(self, channel_id: int, message: MessageData, nonce: str) -> int:
        try:
            return await self.channels.send(channel_id, message, nonce)
        except DeliveryError as exc:
            if _cannot_dm(exc.__cause__):
                raise DmsClosed(str(exc.__cause__)) from exc.__cause__
            raise

    async def history(
        self, channel_id: int, after: datetime, limit: int
    ) -> Sequence[ChannelMessage]:
        return await self.channels.history(channel_id, after, limit)


def _cannot_dm(exc: BaseException | None) -> bool:
    return isinstance(exc, discord.HTTPException) and exc.code == CANNOT_DM


def dm_error(exc: BaseException) -> DeliveryError:
    """Opening a DM failed: closed DMs (50007), another refusal, or transient."""
    if _cannot_dm(exc):
        return DmsClosed(f"Discord refuses DMs to this user ({exc})")
    if isinstance(exc, discord.HTTPException) and 400 <= exc.status < 500 and exc.status != 429:
        return DeliveryError(
            f"Discord refused to open the DM ({exc.status}: {exc.text})", permanent=True
        )
    return DeliveryError(
        f"Discord could not be reached ({type(exc).__name__}: {exc})", permanent=False
    )


class PersonalJobs:
    def __init__(
        self,
        service: PersonalDigestService,
        transport: DmTransport,
        scheduler: AsyncIOScheduler,
        *,
        clock: Clock = utc_now,
        after: asyncio.Future[Any] | None = None,
    ) -> None:
        self.service = service
        self.transport = transport
        self.scheduler = scheduler
        self.clock = clock
        # The server digests' catch-up: the DMs pick after it, so a paper a
        # server is posting to the reader right now is not also DMed.
        self._after = after
        self._catch_up: asyncio.Task[list[DmResult]] | None = None

    async def start(self) -> None:
        """Rebuild the jobs from SQLite, then catch up in the background."""
        configured = await self.service.enabled()
        for settings in configured:
            self.schedule(settings)
        self.scheduler.add_job(
            self.resolve_open,
            IntervalTrigger(minutes=RESOLVE_EVERY_MINUTES, timezone=UTC),
            id="dm-resolve",
            coalesce=True,
            max_instances=1,
            replace_existing=True,
        )
        log.info("personal digests scheduled for %d readers", len(configured))
        self._catch_up = asyncio.create_task(self.catch_up(), name="dm-catch-up")

    async def catch_up(self) -> list[DmResult]:
        """After a (re)start: settle open DMs, then send what was missed today."""
        if self._after is not None:
            await asyncio.wait([self._after])  # its outcome is its own business
        results = await self.resolve_open()
        for settings in await self.service.enabled():
            results.append(await self.run(settings.user_id))
        sent = sum(r.outcome == "posted" for r in results)
        if sent:
            log.info("start-up catch-up sent %d missed personal digests", sent)
        return results

    async def resolve_open(self) -> list[DmResult]:
        return await self.service.recover(self.transport, self.clock())

    def schedule(self, settings: PersonalSettings) -> None:
        """(Re)place a reader's job; a disabled setting just removes it."""
        if not settings.enabled:
            self.unschedule(settings.user_id)
            return
        place_daily(
            self.scheduler,
            self.run,
            settings.user_id,
            job_id(settings.user_id),
            settings.post_time,
            settings.timezone,
        )

    def unschedule(self, user_id: int) -> None:
        remove_daily(self.scheduler, job_id(user_id))

    def next_run_time(self, user_id: int) -> datetime | None:
        return next_daily_run(self.scheduler, job_id(user_id))

    async def run(self, user_id: int) -> DmResult:
        """One reader's daily run (also what a due job fires)."""
        try:
            result = await self.service.run_scheduled(user_id, self.transport, self.clock())
        except Exception:  # one reader's bug must not stop the others' DMs
            log.exception("personal digest run for user %d failed", user_id)
            return DmResult("failed", user_id, detail="internal error")
        if result.outcome == "dms-closed":
            self.unschedule(user_id)  # switched off: no job keeps firing for it
        if result.outcome not in ("not-due", "already-posted"):
            log.info("personal digest for user %d: %s %s", user_id, result.outcome, result.detail)
        return result

    async def shutdown(self) -> None:
        if self._catch_up is not None and not self._catch_up.done():
            self._catch_up.cancel()


def job_id(user_id: int) -> str:
    return f"{_JOB_PREFIX}{user_id}"


_RUNNING: weakref.WeakKeyDictionary[discord.Client, PersonalJobs] = weakref.WeakKeyDictionary()
_BY_SCHEDULER: weakref.WeakKeyDictionary[DigestScheduler, PersonalJobs] = (
    weakref.WeakKeyDictionary()
)


def running(bot: discord.Client) -> PersonalJobs | None:
    """The bot's started personal jobs, for /digest me."""
    return _RUNNING.get(bot)


async def start(
    bot: discord.Client,
    service: PersonalDigestService,
    digest: DigestScheduler,
    *,
    clock: Clock = utc_now,
) -> PersonalJobs:
    """Start the personal jobs on the digest scheduler (shared pacer)."""
    jobs = PersonalJobs(
        service,
        DiscordDmTransport(bot, digest.transport),
        digest.scheduler,
        clock=clock,
        after=digest.catching_up,
    )
    await jobs.start()
    _RUNNING[bot] = jobs
    _BY_SCHEDULER[digest] = jobs
    return jobs


async def shutdown(digest: DigestScheduler) -> None:
    jobs = _BY_SCHEDULER.pop(digest, None)
    if jobs is not None:
        await jobs.shutdown()
