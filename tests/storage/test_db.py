"""The database: pragmas and numbered migrations tracked with PRAGMA user_version."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from paperbot.storage.db import ConstraintError, Database, StorageError, available_migrations


async def pragma(db: Database, name: str) -> object:
    async with db.conn.execute(f"PRAGMA {name}") as cursor:
        row = await cursor.fetchone()
    assert row is not None
    return row[0]


async def test_open_sets_wal_foreign_keys_and_latest_version(sqlite_db: Database) -> None:
    assert await pragma(sqlite_db, "journal_mode") == "wal"
    assert await pragma(sqlite_db, "foreign_keys") == 1
    assert await pragma(sqlite_db, "user_version") == len(available_migrations())


def test_migrations_are_numbered_without_gaps() -> None:
    versions = [version for version, _, _ in available_migrations()]
    assert versions == list(range(1, len(versions) + 1))


async def test_reopening_applies_nothing_twice(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    first = await Database.open(path)
    async with first.transaction() as conn:
        await conn.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
    await first.close()
    again = await Database.open(path)
    async with again.conn.execute("SELECT value FROM meta WHERE key = 'k'") as cursor:
        assert await cursor.fetchone() == ("v",)
    await again.close()


async def test_partially_migrated_database_is_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    _, _, first_sql = available_migrations()[0]
    conn.executescript(first_sql + "\nPRAGMA user_version = 1;")
    conn.close()
    db = await Database.open(path)
    assert await pragma(db, "user_version") == len(available_migrations())
    await db.close()


async def test_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {len(available_migrations()) + 1}")
    conn.close()
    with pytest.raises(StorageError, match="newer than this paperbot"):
        await Database.open(path)


async def test_transaction_rolls_back_on_error(db: Database) -> None:
    async def insert_then_fail() -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO meta (key, value) VALUES ('x', 'y')")
            raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        await insert_then_fail()
    assert await db.fetch_one("SELECT count(*) FROM meta WHERE key = 'x'") == (0,)


LONG_STATEMENT = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000000)"
    " SELECT count(*) FROM c"
)


async def test_cancelling_a_transaction_interrupts_it_and_rolls_back(sqlite_db: Database) -> None:
    db = sqlite_db
    started = asyncio.Event()

    async def job() -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
            started.set()
            await conn.execute(LONG_STATEMENT)  # hours, unless interrupted

    task = asyncio.create_task(job())
    await started.wait()
    await asyncio.sleep(0.2)
    task.cancel()
    # A liveness bound, not a speed test: without the interrupt this takes hours.
    done, _ = await asyncio.wait({task}, timeout=60)
    assert task in done
    assert task.cancelled()
    async with db.conn.execute("SELECT count(*) FROM meta WHERE key = 'k'") as cursor:
        assert await cursor.fetchone() == (0,)


async def test_fetch_helpers_return_rows(db: Database) -> None:
    async with db.transaction() as conn:
        await conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)", [("a", "1"), ("b", "2")]
        )
    assert await db.fetch_one("SELECT value FROM meta WHERE key = ?", ("b",)) == ("2",)
    assert await db.fetch_one("SELECT value FROM meta WHERE key = ?", ("zzz",)) is None
    rows = await db.fetch_all("SELECT key, value FROM meta WHERE key IN ('a', 'b') ORDER BY key")
    assert rows == [("a", "1"), ("b", "2")]


async def test_a_closed_database_refuses_in_one_line(db: Database) -> None:
    # A background job that outlives the close gets the same error on either backend.
    await db.close()

    async def write() -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO meta (key, value) VALUES ('x', 'y')")

    with pytest.raises(StorageError, match=r"^database .* is closed$"):
        await db.fetch_one("SELECT 1")
    with pytest.raises(StorageError, match=r"^database .* is closed$"):
        await write()
    await db.close()  # still harmless


@pytest.mark.parametrize(
    "sql",
    ["SELECT nope FROM meta", "SELECT * FROM no_such_table", "SELEC 1"],
)
async def test_sqlite_errors_leave_storage_as_storage_errors(sqlite_db: Database, sql: str) -> None:
    db = sqlite_db
    for fetch in (db.fetch_one, db.fetch_all):
        with pytest.raises(StorageError) as caught:
            await fetch(sql)
        assert isinstance(caught.value.__cause__, sqlite3.Error)


async def test_a_broken_constraint_is_a_constraint_error(db: Database) -> None:
    async with db.transaction() as conn:
        await conn.execute("INSERT INTO meta (key, value) VALUES ('k', 'first')")
    with pytest.raises(ConstraintError):
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO meta (key, value) VALUES ('k', 'second')")
    assert issubclass(ConstraintError, StorageError)
    # Rolled back, and the connection is usable for the next transaction.
    assert await db.fetch_one("SELECT value FROM meta WHERE key = 'k'") == ("first",)
    async with db.transaction() as conn:
        await conn.execute("UPDATE meta SET value = 'third' WHERE key = 'k'")
    assert await db.fetch_one("SELECT value FROM meta WHERE key = 'k'") == ("third",)


async def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "garbage.sqlite3"
    path.write_bytes(b"this is not a database file at all, just text " * 100)
    with pytest.raises(StorageError, match=f"database {path} is damaged"):
        await Database.open(path)
