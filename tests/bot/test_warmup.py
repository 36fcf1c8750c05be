"""WarmUp: a cog's background preparation never breaks the cog."""

from __future__ import annotations

import asyncio

import pytest

from paperbot.bot.warmup import WarmUp


async def test_a_failing_job_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    async def boom() -> None:
        raise RuntimeError("index broken")

    warmup = WarmUp("test-warmup", boom)
    warmup.start()
    assert warmup.task is not None
    await warmup.task
    assert "test-warmup failed" in caplog.text
    assert "index broken" in caplog.text


async def test_stop_cancels_a_running_job() -> None:
    started = asyncio.Event()

    async def forever() -> None:
        started.set()
        await asyncio.Event().wait()

    warmup = WarmUp("test-warmup", forever)
    warmup.start()
    await started.wait()
    await warmup.stop()
    assert warmup.task is not None
    assert warmup.task.cancelled()


async def test_stop_before_start_is_harmless() -> None:
    await WarmUp("never-started", asyncio.sleep).stop()
