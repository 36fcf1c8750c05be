"""Helpers for the CLI tests of saved papers and user data (`paperbot saved`,
`forget`, `purge`): the App the CLI opens, one reader's data in a server."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from paperbot.config import load_settings
from paperbot.services.app import App

GUILD, GONE_GUILD, FRESH_GUILD, USER = 4242, 5151, 6161, 77


def with_app(job: Callable[[App], Awaitable[None]]) -> None:
    """Run `job` on the App the CLI would open (the environment's settings)."""

    async def run() -> None:
        app = await App.open(load_settings())
        try:
            await job(app)
        finally:
            await app.close()

    asyncio.run(run())


def seed(guild: int = GUILD) -> None:
    """USER follows one topic and saves papers 1, 2 and 3 in `guild`."""

    async def job(app: App) -> None:
        now = datetime.now(UTC)
        await app.subscriptions.subscribe(guild, USER, "reasoning", now)
        for paper_id in (1, 2, 3):
            await app.library.toggle_saved(guild, USER, paper_id, now + timedelta(seconds=paper_id))

    with_app(job)
