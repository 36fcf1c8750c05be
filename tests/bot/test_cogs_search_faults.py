"""Searches arriving together see each other before any await (issue 13, flaky load test)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from paperbot.bot.cogs.search import Search
from paperbot.config import BUNDLED_CORPUS, SearchSettings
from paperbot.services.app import App
from tests.support.app import settings_for
from tests.support.corpus import LoadPages
from tests.support.discord_mocks import MockBot, MockInteraction


@pytest.fixture
async def app(tmp_path: Path, load_pages: LoadPages) -> AsyncIterator[App]:
    search = SearchSettings(page_size=5, cooldown_uses=5, cooldown_seconds=60)
    app = await App.open(settings_for(tmp_path / "paperbot.sqlite3", search=search))
    await load_pages(app, BUNDLED_CORPUS)
    yield app
    await app.close()


async def test_a_search_arriving_while_another_decides_defers_at_once(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the first search waits on the database to learn whether the index
    is current, a second one must not wait on that too: it defers first."""
    await app.search.refresh()
    bot = MockBot(app=app)
    cog = Search(bot)  # type: ignore[arg-type]
    database_busy = asyncio.Event()
    real_is_current = app.search.is_current

    async def slow_is_current() -> bool:
        await database_busy.wait()  # the aiosqlite queue is busy with others' work
        return await real_is_current()

    monkeypatch.setattr(app.search, "is_current", slow_is_current)
    first, second = MockInteraction(client=bot), MockInteraction(client=bot)

    async def run(interaction: Any, query: str) -> None:
        await cog.search.callback(cog, interaction, query=query)

    one = asyncio.create_task(run(first, "diffusion"))
    await asyncio.sleep(0)
    two = asyncio.create_task(run(second, "scaling laws"))
    for _ in range(5):
        await asyncio.sleep(0)
    # The second search acknowledged without waiting on the busy database.
    second.response.defer.assert_awaited_once_with(thinking=True)
    database_busy.set()
    await asyncio.gather(one, two)
    assert second.followup.send.await_count == 1
