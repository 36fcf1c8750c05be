"""`corpus.sources` are fetched once at start-up (in the background, not
waiting an interval), then on their schedule with the same rules."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from paperbot.config import CorpusSettings
from paperbot.services import sources
from paperbot.services.app import App
from paperbot.services.watch import CorpusWatcher
from tests.support.app import FIXED_NOW, settings_for
from tests.support.page_server import PageServer, Served, digest_page

PATH = "/icml2026.txt"


@pytest.fixture
async def server() -> AsyncIterator[PageServer]:
    pages = PageServer()
    pages.pages[PATH] = Served(digest_page(["Quasar Lattice Tokenizers"]), failures_left=1)
    await pages.start()
    yield pages
    await pages.stop()


async def open_app(tmp_path: Path, url: str, poll_seconds: float) -> App:
    base = settings_for(tmp_path / "db" / "paperbot.sqlite3")
    (tmp_path / "corpus").mkdir()
    corpus = CorpusSettings(
        path=tmp_path / "corpus",
        poll_seconds=poll_seconds,
        sources=[url],
        sources_poll_seconds=3600,
        source_timeout_seconds=5.0,
    )
    app = await App.open(base.model_copy(update={"corpus": corpus}))
    await app.prepare(topics=False)
    return app


async def found(app: App, query: str) -> list[str]:
    return [h.paper.title for h in (await app.search.search(query, limit=5)).hits]


async def until_found(app: App, query: str, seconds: float) -> list[str]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    titles = await found(app, query)
    while not titles and loop.time() < deadline:
        await asyncio.sleep(0.05)
        titles = await found(app, query)
    return titles


@pytest.mark.parametrize("poll_seconds", [3600.0, 0.0])
async def test_sources_are_fetched_at_start_up_in_the_background(
    tmp_path: Path,
    server: PageServer,
    monkeypatch: pytest.MonkeyPatch,
    poll_seconds: float,
) -> None:
    monkeypatch.setattr(sources, "BACKOFF_SECONDS", 0.01)
    app = await open_app(tmp_path, server.url(PATH), poll_seconds)
    watcher = CorpusWatcher(app, lambda: FIXED_NOW)
    await watcher.start_from_current()
    assert watcher.has_work
    running = asyncio.create_task(watcher.run())
    try:
        # Neither the folder's hour nor the sources' hour is waited for.
        titles = await until_found(app, "quasar lattice", seconds=10.0)
        assert titles == ["Quasar Lattice Tokenizers"]
        # The same rules as the scheduled fetch: the 503 was retried.
        assert server.requests == [(PATH, False), (PATH, False)]
        assert not running.done()  # then it waits for the schedule
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
        await app.close()


async def test_an_unreachable_source_at_start_up_does_not_stop_the_watcher(
    tmp_path: Path, server: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "BACKOFF_SECONDS", 0.01)
    url = server.url(PATH)
    await server.stop()
    app = await open_app(tmp_path, url, 3600.0)
    watcher = CorpusWatcher(app, lambda: FIXED_NOW)
    await watcher.start_from_current()
    running = asyncio.create_task(watcher.run())
    try:
        await asyncio.sleep(1.0)
        assert not running.done()
        assert await app.corpus.paper_count() == 0
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
        await app.close()


async def test_nothing_to_watch_returns_at_once(tmp_path: Path) -> None:
    base = settings_for(tmp_path / "paperbot.sqlite3")
    corpus = CorpusSettings(path=tmp_path, poll_seconds=0)
    app = await App.open(base.model_copy(update={"corpus": corpus}))
    try:
        watcher = CorpusWatcher(app, lambda: FIXED_NOW)
        assert not watcher.has_work
        await asyncio.wait_for(watcher.run(), 1.0)
    finally:
        await app.close()
