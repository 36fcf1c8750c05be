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
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from paperbot.bot.daily_jobs import Clock, DailyJobs
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


class PersonalJobs(DailyJobs[PersonalSettings, DmResult, DmTransport]):
    """The personal DMs' jobs (`DailyJobs`, keyed by reader) on the server
    digest's scheduler; a reader whose DMs are closed loses their job."""

    name = "dm"
    label = "personal digest run for user"
    plural = "personal digests"

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

    def key(self, settings: PersonalSettings) -> int:
        return settings.user_id

    def crashed(self, key: int) -> DmResult:
        return DmResult("failed", key, detail="internal error")

    def ran(self, key: int, result: DmResult) -> None:
        if result.outcome == "dms-closed":
            self.unschedule(key)  # switched off: no job keeps firing for it


def job_id(user_id: int) -> str:
    return f"{PersonalJobs.name}:{user_id}"


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
