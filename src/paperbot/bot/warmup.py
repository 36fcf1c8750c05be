"""Preparing a service in the background when a cog loads."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)


class WarmUp:
    """One background job started by `cog_load` and cancelled by `cog_unload`.

    Building an index or normalising the corpus can take seconds; doing it
    right after start-up means the first command doesn't pay for it.
    """

    def __init__(self, name: str, job: Callable[[], Awaitable[object]]) -> None:
        self.name = name
        self._job = job
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name=self.name)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def _run(self) -> None:
        try:
            await self._job()
        except Exception:  # a failed warm-up only costs the first command its speed
            log.exception("%s failed; the first command will prepare it instead", self.name)
