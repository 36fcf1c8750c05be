"""Searches arriving together see each other before any await (issue 13, flaky load test)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from paperbot.bot import respond
from paperbot.bot.cogs.search import Search
from paperbot.config import BUNDLED_CORPUS, SearchSettings
from paperbot.services.app import App
from tests.support.app import settings_for
from tests.support.commands import invoke
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
    cog = Search(bot)
    database_busy = asyncio.Event()
    real_is_current = app.search.is_current

    async def slow_is_current() -> bool:
        await database_busy.wait()  # the aiosqlite queue is busy with others' work
        return await real_is_current()

    monkeypatch.setattr(app.search, "is_current", slow_is_current)
    first, second = MockInteraction(client=bot), MockInteraction(client=bot)

    async def run(interaction: Any, query: str) -> None:
        await invoke(cog.search, interaction, query=query)

    one = asyncio.create_task(run(first, "diffusion"))
    await asyncio.sleep(0)
    two = asyncio.create_task(run(second, "scaling laws"))
    for _ in range(5):
        await asyncio.sleep(0)
    # The second search acknowledged without waiting on the busy database.
    second.response.defer.assert_awaited_once_with(ephemeral=False, thinking=True)
    database_busy.set()
    await asyncio.gather(one, two)
    assert second.followup.send.await_count == 1


async def test_a_search_waiting_for_its_answer_defers_when_others_arrive(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first search of a burst saw nobody else and waited for its answer;
    the burst's work on the loop then delayed its deferral past the budget
    (acknowledged at 2.2 s while the others were at 0.2 s)."""
    await app.search.refresh()
    bot = MockBot(app=app)
    cog = Search(bot)
    database_busy = asyncio.Event()
    real_search = app.search.search

    async def slow_search(*args: Any, **kwargs: Any) -> Any:
        await database_busy.wait()  # the burst's queries ahead of this one's
        return await real_search(*args, **kwargs)

    monkeypatch.setattr(app.search, "search", slow_search)
    first, second = MockInteraction(client=bot), MockInteraction(client=bot)
    one = asyncio.create_task(invoke(cog.search, first, query="diffusion"))
    for _ in range(5):
        await asyncio.sleep(0)
    first.response.defer.assert_not_awaited()  # alone, within its budget: waits
    two = asyncio.create_task(invoke(cog.search, second, query="scaling laws"))
    for _ in range(5):
        await asyncio.sleep(0)
    # Both acknowledged at once, well within the one-second budget.
    first.response.defer.assert_awaited_once_with(ephemeral=False, thinking=True)
    second.response.defer.assert_awaited_once_with(ephemeral=False, thinking=True)
    database_busy.set()
    await asyncio.gather(one, two)
    assert first.followup.send.await_count == second.followup.send.await_count == 1


@pytest.mark.parametrize(
    ("age", "delay", "deferred"),
    [
        (0.0, 0.0, False),  # answered at once
        (0.0, 0.4, True),  # a warm index, and still slower than the budget
        (0.15, 0.1, True),  # reached the bot late: what is left of the budget counts
        (-10.0, 0.4, True),  # a clock behind Discord's does not lengthen the budget
    ],
)
async def test_a_search_not_answered_within_the_budget_defers_first(
    app: App, monkeypatch: pytest.MonkeyPatch, age: float, delay: float, deferred: bool
) -> None:
    """A burst's first search found the index current and waited for its
    answer without deferring, while the database served the whole burst's
    queries in turn: acknowledged after 3.6 s. The budget runs from the
    interaction's creation, which is when Discord's 3 seconds start."""
    await app.search.refresh()
    monkeypatch.setattr(respond, "DEFER_AFTER_SECONDS", 0.2)
    real_search = app.search.search

    async def slow_search(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(delay)  # the database busy with the burst
        return await real_search(*args, **kwargs)

    monkeypatch.setattr(app.search, "search", slow_search)
    bot = MockBot(app=app)
    created = datetime.now(UTC) - timedelta(seconds=age)
    interaction = MockInteraction(client=bot, created_at=created)
    await invoke(Search(bot).search, interaction, query="diffusion")
    assert interaction.response.defer.await_count == int(deferred)
    answers = interaction.followup.send.await_count + interaction.response.send_message.await_count
    assert answers == 1
