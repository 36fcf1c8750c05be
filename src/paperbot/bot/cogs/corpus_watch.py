"""Following the corpus while the bot runs: the corpus watcher (new pages in
the folder, an operator's `paperbot load`) as a background task of the bot."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from discord.ext import commands

from paperbot.clock import utc_now
from paperbot.services.watch import CorpusWatcher

if TYPE_CHECKING:
    from paperbot.bot.client import PaperBot

log = logging.getLogger(__name__)


class CorpusWatch(commands.Cog):
    """No commands: polls the corpus every `corpus.poll_seconds`."""

    def __init__(self, bot: PaperBot) -> None:
        self.bot = bot
        self.watcher = CorpusWatcher(bot.app, utc_now)
        self._task: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        if self.watcher.interval <= 0:
            log.info("corpus.poll_seconds is 0: new pages are loaded at the next start only")
        if not self.watcher.has_work:
            return
        # The start-up load has just run: what is there now is the baseline.
        await self.watcher.start_from_current()
        # In the background: the first fetch of `corpus.sources` happens at
        # once but never delays "ready".
        self._task = asyncio.create_task(self.watcher.run(), name="corpus-watch")
        if self.watcher.interval > 0:
            settings = self.bot.app.settings.corpus
            log.info("watching %s every %gs", settings.path, self.watcher.interval)

    async def cog_unload(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(CorpusWatch(bot))
