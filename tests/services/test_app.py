"""The App: the services are the only way into the database."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from paperbot.core.models import Paper, VenueCount
from paperbot.services import workers
from paperbot.services.app import App, StorageError
from paperbot.services.feedback import FeedbackService
from paperbot.services.search import SearchService
from paperbot.storage import Database, open_database
from tests.support.app import FIXED_NOW, settings_for
from tests.support.corpus import LoadPages

GUILD, ALICE, BOB = 10, 1, 2


async def test_close_twice_is_harmless(tmp_path: Path) -> None:
    app = await App.open(settings_for(tmp_path / "paperbot.sqlite3"))
    await app.close()
    await app.close()


async def test_a_failure_after_the_database_opened_closes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Left open, its connection's thread would keep the process alive at exit.
    closed: list[bool] = []
    real_open = open_database

    async def spied_open(*args: object, **kwargs: object) -> Database:
        db = await real_open(*args, **kwargs)  # type: ignore[arg-type]
        real_close = db.close

        async def close() -> None:
            closed.append(True)
            await real_close()

        monkeypatch.setattr(db, "close", close)
        return db

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("a service could not start")

    monkeypatch.setattr("paperbot.services.app.open_store", spied_open)
    monkeypatch.setattr(FeedbackService, "__init__", broken)
    with pytest.raises(RuntimeError, match="could not start"):
        await App.open(settings_for(tmp_path / "paperbot.sqlite3"))
    assert closed == [True]


async def test_close_stops_the_workers_even_when_the_database_fails_to_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = await App.open(settings_for(tmp_path / "paperbot.sqlite3"))
    assert await workers.in_worker(os.getpid) != os.getpid()

    async def broken_close() -> None:
        raise StorageError("disk gone")

    real_close = app._db.close
    monkeypatch.setattr(app._db, "close", broken_close)
    try:
        with pytest.raises(StorageError, match="disk gone"):
            await app.close()
        assert workers._pools == {}
    finally:
        workers.shutdown_workers()
        await real_close()


def test_the_database_is_not_public() -> None:
    assert "db" not in App.__dataclass_fields__
    assert "_db" in App.__dataclass_fields__


async def test_corpus_service_reads_what_was_loaded(loaded_app: App) -> None:
    corpus = loaded_app.corpus
    count = await corpus.paper_count()
    everything = await corpus.list_papers()
    assert count > 100
    assert len(everything) == count
    assert [p.id for p in everything] == sorted(p.id for p in everything)
    venues = await corpus.venues()
    assert all(isinstance(v, VenueCount) for v in venues)
    assert sum(v.papers for v in venues) == count
    assert [v.year for v in venues] == sorted((v.year for v in venues), reverse=True)
    neurips = await corpus.list_papers(venue="neurips")
    assert neurips
    assert {p.venue for p in neurips} == {"NeurIPS"}
    wanted = [everything[5].id, everything[0].id, 10**9]
    assert [p.id for p in await corpus.get_papers(wanted)] == wanted[:2]
    columns = await corpus.columns()
    assert columns.ids == [p.id for p in everything]
    assert columns.titles == [p.title for p in everything]
    assert columns.summaries == [p.summary for p in everything]


async def test_corpus_service_loads_into_the_app(
    loaded_app: App, tmp_path: Path, load_pages: LoadPages
) -> None:
    page = tmp_path / "extra-icml-2026.txt"
    page.write_text("Zebrafish Transformers: 提出斑马鱼 Transformer。\n", encoding="utf-8")
    before = await loaded_app.corpus.paper_count()
    report = await load_pages(loaded_app, page)
    assert report.new == 1
    assert await loaded_app.corpus.paper_count() == before + 1
    found = await loaded_app.corpus.list_papers(venue="ICML", year=2026)
    assert all(isinstance(p, Paper) for p in found)
    assert "Zebrafish Transformers" in {p.title for p in found}


async def test_close_stops_a_search_rebuild_in_progress(
    loaded_app: App,
    tmp_path: Path,
    load_pages: LoadPages,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Left running, the rebuild would read the closed database and log a failure.
    await loaded_app.search.search("scaling laws")
    release, resumed = asyncio.Event(), []
    real_catch_up = SearchService._catch_up

    async def slow_catch_up(self: SearchService, *args: Any) -> object:
        await release.wait()
        resumed.append(True)
        return await real_catch_up(self, *args)

    monkeypatch.setattr(SearchService, "_catch_up", slow_catch_up)
    monkeypatch.setattr("paperbot.services.search.FRESH_WAIT_SECONDS", 0.01)
    page = tmp_path / "extra-icml-2026.txt"
    page.write_text("Zebrafish Transformers: 提出斑马鱼 Transformer。\n", encoding="utf-8")
    await load_pages(loaded_app, page)
    loaded_app.search.forget_version()
    stale = await loaded_app.search.search("Zebrafish")  # answered by the previous index
    assert "Zebrafish Transformers" not in {hit.paper.title for hit in stale.hits}
    await loaded_app.close()
    release.set()
    for _ in range(5):
        await asyncio.sleep(0)
    assert resumed == []
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


async def test_state_service_keeps_values(loaded_app: App) -> None:
    state = loaded_app.state
    assert await state.get("sync:1") is None
    await state.set("sync:1", "a")
    await state.set("sync:2", "b")
    await state.set("sync:1", "c")
    await state.set("other", "d")
    assert await state.get("sync:1") == "c"
    assert await state.keys("sync:") == ["sync:1", "sync:2"]
    await state.delete("sync:1")
    assert await state.keys("sync:") == ["sync:2"]
    assert await state.get("sync:1") is None


async def test_subscription_listing_across_servers(loaded_app: App) -> None:
    subs = loaded_app.subscriptions
    await subs.subscribe(GUILD, ALICE, "rlhf", FIXED_NOW)
    await subs.subscribe(GUILD, BOB, "rlhf", FIXED_NOW)
    await subs.subscribe(GUILD + 1, ALICE, "rlhf", FIXED_NOW)
    everything = await subs.listing()
    assert [(s.guild_id, s.user_id) for s in everything] == [
        (GUILD, ALICE),
        (GUILD, BOB),
        (GUILD + 1, ALICE),
    ]
    assert [s.user_id for s in await subs.listing(guild_id=GUILD)] == [ALICE, BOB]
    assert [s.guild_id for s in await subs.listing(user_id=ALICE)] == [GUILD, GUILD + 1]
    assert await subs.listing(guild_id=GUILD + 1, user_id=BOB) == []
