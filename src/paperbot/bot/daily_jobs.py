"""`DailyJobs`: what the server digest's scheduler and the personal DM jobs
share. One APScheduler job a day per key (a server's digest, a reader's DM),
placed, removed and read the same way, the resolver and the catch-up."""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, ClassVar, Generic, Protocol, TypeVar
from zoneinfo import ZoneInfo

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from paperbot.core.models import DailySchedule
from paperbot.services.digest import DigestTransport, PostResult
from paperbot.services.personal_digest import DmResult

log = logging.getLogger(__name__)

# How often the posts a send left open (a transient failure) are resolved.
RESOLVE_EVERY_MINUTES = 10

Clock = Callable[[], datetime]
S = TypeVar("S", bound=DailySchedule)
S_co = TypeVar("S_co", bound=DailySchedule, covariant=True)
R = TypeVar("R", bound=PostResult | DmResult)
R_co = TypeVar("R_co", bound=PostResult | DmResult, covariant=True)
T = TypeVar("T", bound=DigestTransport)
T_contra = TypeVar("T_contra", bound=DigestTransport, contravariant=True)


class DailyService(Protocol[S_co, R_co, T_contra]):
    """What the jobs call: `DigestService` (key: a guild) or
    `PersonalDigestService` (key: a reader)."""

    async def enabled(self) -> Sequence[S_co]: ...
    async def recover(self, transport: T_contra, now: datetime, /) -> Sequence[R_co]: ...
    async def run_scheduled(self, key: int, transport: T_contra, now: datetime, /) -> R_co: ...


class DailyJobs(ABC, Generic[S, R, T]):
    """The daily jobs of one kind of digest on an APScheduler: one job a day
    per key, a slow job resolving what a send left open, and the start-up
    catch-up (settle open posts, then run every key: the service decides
    whether a day is still owed). A kind names its jobs (`name`, `label`)
    and says how a setting maps to its key and a crash to a result."""

    # Job ids are f"{name}:{key}", plus f"{name}-resolve"; the catch-up task
    # is f"{name}-catch-up".
    name: ClassVar[str]
    # How one key's run is named in the logs ("digest run for guild").
    label: ClassVar[str]
    # What the start-up catch-up counts in the log ("digests").
    plural: ClassVar[str]

    service: DailyService[S, R, T]
    transport: T
    scheduler: AsyncIOScheduler
    clock: Clock
    # Waited for before the catch-up runs (the DMs wait for the server digests').
    _after: asyncio.Future[Any] | None = None
    _catch_up: asyncio.Task[list[R]] | None = None

    @abstractmethod
    def key(self, settings: S) -> int:
        """The guild or reader a setting schedules."""

    @abstractmethod
    def crashed(self, key: int) -> R:
        """The result of a run that raised (an internal error)."""

    def ran(self, key: int, result: R) -> None:
        """After a run: a kind's own follow-up (none by default)."""

    async def start(self) -> None:
        """Rebuild the jobs from the database, then catch up in the background."""
        configured = await self.service.enabled()
        for settings in configured:
            self.schedule(settings)
        self.scheduler.add_job(
            self.resolve_open,
            IntervalTrigger(minutes=RESOLVE_EVERY_MINUTES, timezone=UTC),
            id=f"{self.name}-resolve",
            coalesce=True,
            max_instances=1,
            replace_existing=True,
        )
        log.info("%d %s scheduled", len(configured), self.plural)
        self._catch_up = asyncio.create_task(self.catch_up(), name=f"{self.name}-catch-up")

    async def catch_up(self) -> list[R]:
        """After a (re)start: settle open posts, then send what was missed today."""
        if self._after is not None:
            await asyncio.wait([self._after])  # its outcome is its own business
        results = await self.resolve_open()
        for settings in await self.service.enabled():
            results.append(await self.run(self.key(settings)))
        sent = sum(r.outcome == "posted" for r in results)
        if sent:
            log.info("start-up catch-up sent %d missed %s", sent, self.plural)
        return results

    async def resolve_open(self) -> list[R]:
        return list(await self.service.recover(self.transport, self.clock()))

    def job_id(self, key: int) -> str:
        return f"{self.name}:{key}"

    def schedule(self, settings: S) -> None:
        """(Re)place the job that runs a key every day at its local time; a
        disabled setting just removes it."""
        key = self.key(settings)
        if not settings.enabled:
            self.unschedule(key)
            return
        at = settings.post_time
        self.scheduler.add_job(
            self.run,
            CronTrigger(hour=at.hour, minute=at.minute, timezone=ZoneInfo(settings.timezone)),
            args=[key],
            id=self.job_id(key),
            replace_existing=True,
            coalesce=True,
            max_instances=1,
            # Late is fine (a busy loop, a send queue): the service decides
            # whether the day's post is still owed.
            misfire_grace_time=None,
        )

    def unschedule(self, key: int) -> None:
        if self.scheduler.get_job(self.job_id(key)) is not None:
            self.scheduler.remove_job(self.job_id(key))

    def next_run_time(self, key: int) -> datetime | None:
        job = self.scheduler.get_job(self.job_id(key))
        return job.next_run_time if job is not None else None

    async def run(self, key: int) -> R:
        """One key's daily run (also what a due job fires)."""
        try:
            result = await self.service.run_scheduled(key, self.transport, self.clock())
        except Exception:  # one key's bug must not stop the others' digests
            log.exception("%s %d failed", self.label, key)
            return self.crashed(key)
        self.ran(key, result)
        if result.outcome not in ("not-due", "already-posted"):
            log.info("%s %d: %s %s", self.label, key, result.outcome, result.detail)
        return result

    async def shutdown(self) -> None:
        if self._catch_up is not None and not self._catch_up.done():
            self._catch_up.cancel()
