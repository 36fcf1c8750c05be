"""A bulk write of papers on SQLite gets a larger page cache while it writes,
and the connection's own cache size back afterwards."""

from __future__ import annotations

import pytest

from paperbot.core.load_plan import plan_load
from paperbot.core.models import Entry, ParsedFile, Source
from paperbot.storage import papers
from paperbot.storage.db import Database
from tests.support.app import FIXED_NOW


def parsed(count: int) -> ParsedFile:
    entries = tuple(
        Entry(f"Paper Number {i}", "ICML", 2025, "预训练", (f"摘要 {i}",), Source("a.txt", i))
        for i in range(1, count + 1)
    )
    return ParsedFile("a.txt", entries, ())


@pytest.mark.parametrize(("bulk_rows", "count"), [(1, 30), (10_000, 30)])
async def test_cache_size_is_set_back_after_a_bulk_write(
    sqlite_db: Database, monkeypatch: pytest.MonkeyPatch, bulk_rows: int, count: int
) -> None:
    monkeypatch.setattr(papers, "BULK_ROWS", bulk_rows)
    seen: list[int] = []
    executemany = type(sqlite_db.conn).executemany

    async def spy(conn: object, sql: str, rows: object) -> object:
        if sql.startswith("INSERT INTO papers"):
            seen.append(int((await sqlite_db.fetch_one("PRAGMA cache_size") or (0,))[0]))
        return await executemany(conn, sql, rows)

    monkeypatch.setattr(type(sqlite_db.conn), "executemany", spy)
    before = await sqlite_db.fetch_one("PRAGMA cache_size")
    await papers.apply_load(sqlite_db, plan_load({}, [parsed(count)]), FIXED_NOW)
    assert await sqlite_db.fetch_one("PRAGMA cache_size") == before
    assert await papers.paper_count(sqlite_db) == count
    expected = -papers.BULK_CACHE_KIB if bulk_rows <= count else int(before[0]) if before else 0
    assert seen == [expected]
