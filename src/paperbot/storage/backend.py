"""What every storage module needs from a database, whichever backend it is.

Two backends implement `Database`: SQLite (`storage/db.py`, the embedded
default) and PostgreSQL (`storage/postgres.py`, for several processes).
Storage modules write their SQL once with `?` / `?1` placeholders (the
PostgreSQL backend rewrites them to `$1`); where the dialects really differ
(JSON functions, PRAGMAs) a module passes both texts to `dialect_sql`. The
services hold a `Database` and never learn which backend it is.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

Dialect = Literal["sqlite", "postgresql"]
#: A row: indexable and unpackable like a tuple (sqlite3.Row, asyncpg.Record).
Row = Sequence[Any]
#: URL schemes that select the PostgreSQL backend.
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_SCHEME = "sqlite:///"


@dataclass(frozen=True, slots=True)
class Executed:
    """What a write statement did: rows changed, and SQLite's last row id
    (None on PostgreSQL: use `INSERT ... RETURNING id` with `fetch_one`)."""

    rowcount: int
    lastrowid: int | None = None


class Transaction(Protocol):
    """One open write transaction; every statement runs inside it."""

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> Executed: ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> Row | None: ...

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]: ...

    async def lock(self, name: str) -> None:
        """Serialise with other transactions taking `name` until this one ends.
        Call it first in a transaction that reads, then writes on what it read
        (a limit check, a toggle): PostgreSQL runs writers concurrently."""
        ...


class Database(Protocol):
    """A migrated database. `db.fetch_one` inside `async with db.transaction()`
    reads through that transaction on both backends."""

    @property
    def dialect(self) -> Dialect: ...

    @property
    def location(self) -> str:
        """Where the data is, for messages (a file path, or a URL without password)."""
        ...

    @property
    def target(self) -> str:
        """What `open_again` takes to open this database in another process
        of this machine (a worker storing its result): a file path, or the
        URL with its password. Never shown."""
        ...

    def transaction(self) -> AbstractAsyncContextManager[Transaction]: ...

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> Row | None: ...

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]: ...

    def stream(self, sql: str, params: Iterable[Any] = (), batch: int = 5000) -> AsyncIterator[Row]:
        """Rows one at a time, fetched in batches (large reads)."""
        ...

    async def hold(self, name: str) -> bool:
        """Hold `name` for this process's lifetime; False if another process
        holds it. SQLite (one process per file) always says True."""
        ...

    async def notify(self, channel: str, payload: str) -> None:
        """Tell every process listening on `channel` (after this commit)."""
        ...

    async def listen(self, channel: str, callback: Callable[[str], None]) -> None:
        """Call `callback(payload)` for each `notify` on `channel` by any process.
        SQLite has one process, which changes its own state directly: no-op."""
        ...

    async def close(self) -> None: ...


def dialect_sql(db: Database, *, sqlite: str, postgresql: str) -> str:
    """The statement for this database's dialect (only where they differ)."""
    return sqlite if db.dialect == "sqlite" else postgresql


def is_postgres_url(target: str | Path) -> bool:
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


async def open_database(target: str | Path, *, lock_wait_seconds: float = 30.0) -> Database:
    """The migrated database `target` names: a `postgresql://` URL, a
    `sqlite:///path` URL or a file path."""
    if is_postgres_url(target):
        from paperbot.storage.postgres import PostgresDatabase  # asyncpg is an extra

        return await PostgresDatabase.open(str(target))
    from paperbot.storage.db import SqliteDatabase

    path = str(target)
    path = path.removeprefix(SQLITE_SCHEME) if path.startswith(SQLITE_SCHEME) else path
    return await SqliteDatabase.open(Path(path), lock_wait_seconds=lock_wait_seconds)


async def open_again(target: str) -> Database:
    """A second connection to a database this machine opened already
    (`Database.target`; a worker process storing what it built): migrated
    and checked by its opener, so SQLite skips the integrity check (a read
    of the whole file) and PostgreSQL takes one pooled connection."""
    if is_postgres_url(target):
        from paperbot.storage.postgres import PostgresDatabase

        return await PostgresDatabase.open(target, pool_size=1)
    from paperbot.storage.db import SqliteDatabase

    return await SqliteDatabase.open(Path(target), check=False)
