"""SearchService over real SQLite: persisted index, restart, updates after load."""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paperbot.cli import main
from paperbot.config import SearchSettings
from paperbot.core import search as core
from paperbot.core.search import QueryProblem, QueryTables
from paperbot.services.search import SearchService
from paperbot.storage import Database, open_database
from paperbot.storage import search_index as index_store
from paperbot.storage.db import SqliteDatabase
from tests.support.corpus import LoadPages

SETTINGS = SearchSettings()


def service(db: Database, expansions: dict[str, tuple[str, ...]] | None = None) -> SearchService:
    return SearchService(db, SETTINGS, QueryTables(expansions or {}))


async def titles(svc: SearchService, query: str, **options: object) -> list[str]:
    result = await svc.search(query, **options)  # type: ignore[arg-type]
    return [h.paper.title for h in result.hits]


def write_page(folder: Path, name: str, lines: list[str], venue: str = "ICML2026") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    header = f"📚 预训练¶\n\n🧠 {venue} · {len(lines)} 篇论文解读\n\n"
    path.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    return path


async def test_first_search_builds_and_stores_the_index(loaded_db: Database) -> None:
    svc = service(loaded_db)
    assert not await svc.is_current()
    assert (await titles(svc, "toolformr"))[0].startswith("Toolformer")
    assert svc.last_status is not None
    assert svc.last_status.source == "built"
    assert await svc.is_current()
    stored = await index_store.stored_version(loaded_db)
    assert stored == (svc.last_status.corpus_version, core.INDEX_FORMAT)


async def test_restart_reuses_the_stored_index(loaded_db: Database) -> None:
    first = service(loaded_db)
    before = await first.search("数据去重 shampo")
    # A restart: a new connection and a new service over the same database.
    db = await open_database(loaded_db.location)
    try:
        second = service(db)
        after = await second.search("数据去重 shampo")
        assert second.last_status is not None
        assert second.last_status.source == "stored"
        assert [h.paper.id for h in after.hits] == [h.paper.id for h in before.hits]
        assert [h.score for h in after.hits] == [h.score for h in before.hits]
    finally:
        await db.close()


async def test_index_follows_a_later_load(
    loaded_db: Database, tmp_path: Path, load_pages: LoadPages
) -> None:
    svc = service(loaded_db)
    assert await titles(svc, "zebrafish 斑马鱼") == []
    extra = write_page(
        tmp_path / "more",
        "extra-icml-2026.txt",
        ["Zebrafish Transformers for Marine Biology: 提出斑马鱼 Transformer，用于海洋生物学。"],
    )
    await load_pages(loaded_db, extra)
    svc.forget_version()  # the service re-reads the version at most once a second
    found = await titles(svc, "zebrafish 斑马鱼")
    assert found == ["Zebrafish Transformers for Marine Biology"]
    assert svc.last_status is not None
    assert svc.last_status.source == "built"

    # Edited in place: the old wording is gone, the new one is found.
    write_page(
        tmp_path / "more",
        "extra-icml-2026.txt",
        ["Zebrafish Transformers for Marine Biology: 改为研究珊瑚礁。"],
    )
    await load_pages(loaded_db, extra)
    svc.forget_version()
    assert await titles(svc, "珊瑚礁") == ["Zebrafish Transformers for Marine Biology"]
    assert await titles(svc, "斑马鱼") == []

    # And a restart after the load uses the index stored (in the background)
    # after the edit was followed.
    await svc.flush()
    db = await open_database(loaded_db.location)
    try:
        again = service(db)
        assert await titles(again, "珊瑚礁") == ["Zebrafish Transformers for Marine Biology"]
        assert again.last_status is not None
        assert again.last_status.source == "stored"
    finally:
        await db.close()


async def test_stale_stored_index_is_rebuilt(loaded_db: Database) -> None:
    svc = service(loaded_db)
    await svc.refresh()
    stored = await index_store.load_index(loaded_db)
    assert stored is not None
    # Stored under another format: must not be trusted.
    await index_store.save_index(
        loaded_db, stored.arrays, corpus_version=stored.corpus_version, format=-1
    )
    fresh = service(loaded_db)
    await fresh.refresh()
    assert fresh.last_status is not None
    assert fresh.last_status.source == "built"


async def test_unreadable_stored_index_is_rebuilt(loaded_db: Database) -> None:
    svc = service(loaded_db)
    await svc.refresh()
    stored = await index_store.load_index(loaded_db)
    assert stored is not None
    broken = dict(stored.arrays)
    del broken["summary_docs"]
    await index_store.save_index(
        loaded_db, broken, corpus_version=stored.corpus_version, format=core.INDEX_FORMAT
    )
    fresh = service(loaded_db)
    assert (await titles(fresh, "toolformer"))[0].startswith("Toolformer")
    assert fresh.last_status is not None
    assert fresh.last_status.source == "built"


async def test_stored_arrays_round_trip(db: Database) -> None:
    arrays: dict[str, np.ndarray[Any, Any]] = {
        "a": np.arange(5, dtype=np.int64),
        "b": np.zeros((2, 3), dtype=np.int32),
    }
    await index_store.save_index(db, arrays, corpus_version=7, format=1)
    stored = await index_store.load_index(db)
    assert stored is not None
    assert (stored.corpus_version, stored.format) == (7, 1)
    assert np.array_equal(stored.arrays["a"], arrays["a"])
    assert stored.arrays["b"].shape == (2, 3)
    await index_store.clear_index(db)
    assert await index_store.load_index(db) is None


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ("", QueryProblem.EMPTY),
        ("x" * 3000, QueryProblem.TOO_LONG),
        ("🙂", QueryProblem.NO_TERMS),
        ('" OR 1=1 --', QueryProblem.ONLY_COMMON_WORDS),
        ("的", QueryProblem.ONLY_COMMON_WORDS),
    ],
)
async def test_bad_queries(loaded_db: Database, query: str, problem: QueryProblem) -> None:
    result = await service(loaded_db).search(query)
    assert result.problem is problem
    assert result.hits == ()


async def test_an_unknown_venue_is_a_problem_with_the_loaded_venues(loaded_db: Database) -> None:
    result = await service(loaded_db).search("qlora", venue="nips")
    assert result.problem is QueryProblem.UNKNOWN_VENUE
    assert result.hits == ()
    assert "NeurIPS" in result.venues
    assert (await service(loaded_db).search("qlora", venue="NEURIPS")).hits


async def test_an_unknown_year_is_a_problem_with_the_loaded_years(loaded_db: Database) -> None:
    result = await service(loaded_db).search("qlora", year=2019)
    assert result.problem is QueryProblem.UNKNOWN_YEAR
    assert result.hits == ()
    assert 2023 in result.years
    assert (await service(loaded_db).search("qlora", year=2023)).hits


async def test_a_year_the_venue_has_no_paper_from_lists_the_venues_years(
    loaded_db: Database,
) -> None:
    result = await service(loaded_db).search("scaling laws", venue="iclr", year=2023)
    assert result.problem is QueryProblem.UNKNOWN_YEAR
    assert (result.query.venue, result.years) == ("ICLR", (2026,))
    assert (await service(loaded_db).search("scaling laws", venue="iclr", year=2026)).hits


async def test_sql_looking_text_is_only_ever_a_bound_value(loaded_db: Database) -> None:
    svc = service(loaded_db)
    for query in ["'; DROP TABLE papers; --", "NEAR(a b)", "title:*", "x' OR '1'='1"]:
        await svc.search(query)
        await svc.search("diffusion", venue=query)
    assert (await titles(svc, "toolformer"))[0].startswith("Toolformer")


async def test_nothing_found_suggests_close_titles(loaded_db: Database) -> None:
    svc = service(loaded_db)
    result = await svc.search("xqzvbk")
    assert result.hits == ()
    assert result.suggestions == ()
    # Toolformer is a 2023 paper: within 2025 nothing matches, but close
    # titles of 2025 (and only of 2025) are offered.
    result = await svc.search("Toolformr Tols", year=2025)
    assert result.hits == ()
    assert result.suggestions
    years = {h.paper.title: h.paper.year for h in (await svc.search("", year=2025, limit=500)).hits}
    assert all(years.get(title) == 2025 for title in result.suggestions)


async def test_venue_option_any_case(loaded_db: Database) -> None:
    svc = service(loaded_db)
    result = await svc.search("qlora", venue="neurips", year=2023)
    assert result.query.venue == "NeurIPS"
    assert result.hits[0].paper.title.startswith("QLoRA")
    assert await svc.venues() == ("ICLR", "ICML", "NeurIPS")


async def test_expansions_reach_the_other_language(loaded_db: Database) -> None:
    svc = service(loaded_db, {"混合专家": ("mixture of experts",)})
    assert "Mixture of Experts" in (await titles(svc, "混合专家"))[0]


async def test_limit_and_total(loaded_db: Database) -> None:
    result = await service(loaded_db).search("language model", limit=3)
    assert len(result.hits) == 3
    assert result.total > 3


def test_cli_search_json(
    loaded_db: Database, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAPERBOT_DB", loaded_db.location)
    assert main(["search", "shampo", "optimizer", "--json", "--limit", "2"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 2
    assert rows[0]["title"].startswith("Understanding and Improving Shampoo")
    assert {"id", "title", "venue", "year", "score", "summary"} <= set(rows[0])


@pytest.mark.parametrize(
    ("argv", "code", "text"),
    [
        (["search", "ICLR", "2026", "Shampoo"], 0, "Shampoo"),
        (["search", "xqzvbk"], 1, "nothing found"),
        (["search", "🙂"], 1, "no words"),
        (["search", "x" * 3000], 1, "too long"),
        (["search", "toolformer", "--venue", "ICLR"], 1, "nothing found"),
    ],
)
def test_cli_search_text(
    loaded_db: Database,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    code: int,
    text: str,
) -> None:
    monkeypatch.setenv("PAPERBOT_DB", loaded_db.location)
    assert main(argv) == code
    assert text in capsys.readouterr().out


@pytest.mark.parametrize("part_bytes", [8, 24, 1 << 20])
async def test_large_arrays_round_trip_in_parts(
    db: Database, monkeypatch: pytest.MonkeyPatch, part_bytes: int
) -> None:
    monkeypatch.setattr(index_store, "PART_BYTES", part_bytes)
    arrays = {
        "a": np.arange(37, dtype=np.int64),
        "t": core.to_arrays(core.build_index([]))["titles"],
        "m": np.arange(6, dtype=np.int32).reshape(2, 3),
    }
    await index_store.save_index(db, iter(arrays.items()), corpus_version=3, format=1)
    row = await db.fetch_one("SELECT count(*) FROM search_index")
    assert row is not None
    assert (row[0] > len(arrays)) == (part_bytes < 37 * 8)
    stored = await index_store.load_index(db)
    assert stored is not None
    for name, array in arrays.items():
        assert np.array_equal(stored.arrays[name], array)
        assert stored.arrays[name].shape == array.shape


@pytest.mark.parametrize(
    "texts",
    [(), ("",), ("a", ""), ("数据去重", "qlora", "x" * 10_000), tuple(map(str, range(9000)))],
)
def test_texts_round_trip(texts: tuple[str, ...]) -> None:
    # Through the public encoding: the venue names are packed like every text column.
    index = dataclasses.replace(core.build_index([]), venues=texts)
    assert core.from_arrays(core.to_arrays(index)).venues == texts


async def test_an_index_that_cannot_be_stored_still_answers(
    sqlite_loaded_db: SqliteDatabase, caplog: pytest.LogCaptureFixture
) -> None:
    loaded_db = sqlite_loaded_db
    # A read-only database: the save fails inside storage, which reports it
    # as a StorageError; the search is answered from the fresh index anyway.
    await loaded_db.conn.execute("PRAGMA query_only = ON")
    svc = service(loaded_db)
    with caplog.at_level(logging.WARNING, logger="paperbot.services.search"):
        assert (await titles(svc, "toolformr"))[0].startswith("Toolformer")
    assert svc.last_status is not None
    assert svc.last_status.source == "built"
    assert "could not store the search index" in caplog.text
    assert await index_store.stored_version(loaded_db) is None
