"""One APScheduler job a day per key (a server's digest, a reader's DM),
placed, removed and read the same way by both schedulers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, time
from typing import Any
from zoneinfo import ZoneInfo

from apscheduler.schedulers.base import BaseScheduler
from apscheduler.triggers.cron import CronTrigger


def place_daily(
    scheduler: BaseScheduler,
    run: Callable[[int], Awaitable[Any]],
    key: int,
    job_id: str,
    at: time,
    timezone: str,
) -> None:
    """(Re)place the job that calls `run(key)` every day at `at` local time."""
    scheduler.add_job(
        run,
        CronTrigger(hour=at.hour, minute=at.minute, timezone=ZoneInfo(timezone)),
        args=[key],
        id=job_id,
        replace_existing=True,
        coalesce=True,
        max_instances=1,
        # Late is fine (a busy loop, a send queue): the service decides
        # whether the day's post is still owed.
        misfire_grace_time=None,
    )


def remove_daily(scheduler: BaseScheduler, job_id: str) -> None:
    if scheduler.get_job(job_id) is not None:
        scheduler.remove_job(job_id)


def next_daily_run(scheduler: BaseScheduler, job_id: str) -> datetime | None:
    job = scheduler.get_job(job_id)
    return job.next_run_time if job is not None else None
