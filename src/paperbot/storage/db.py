"""The SQLite connection: pragmas, transactions and numbered migrations."""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import aiosqlite

log = logging.getLogger(__name__)

_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class StorageError(Exception):
    """The database cannot be opened, is newer than this code, or a statement failed.

    Every `sqlite3.Error` leaving the storage package is turned into this, so
    the layers above never need to know the store is SQLite.
    """


class ConstraintError(StorageError):
    """A write broke a UNIQUE, CHECK or foreign key constraint."""


def storage_error(exc: sqlite3.Error) -> StorageError:
    """The storage package's own error for a SQLite one (raise it `from exc`)."""
    if isinstance(exc, sqlite3.IntegrityError):
        return ConstraintError(str(exc))
    return StorageError(str(exc))


class Database:
    """One aiosqlite connection with WAL, foreign keys and migrations applied."""

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        # One connection serves every coroutine: transactions must take turns,
        # or a second BEGIN fails with "cannot start a transaction within a transaction".
        self._transaction_lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: Path | str) -> Database:
        path = Path(path)
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = await aiosqlite.connect(path, isolation_level=None)
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open database {path}: {exc}") from exc
        db = cls(conn, path)
        try:
            await db._configure()
            await migrate(conn)
        except sqlite3.Error as exc:
            await conn.close()
            raise StorageError(f"cannot open database {path}: {exc}") from exc
        except BaseException:
            await conn.close()
            raise
        return db

    async def _configure(self) -> None:
        # WAL lets the CLI read while the bot writes; NORMAL sync is safe with WAL.
        await self.conn.execute("PRAGMA journal_mode=WAL")
        await self.conn.execute("PRAGMA synchronous=NORMAL")
        await self.conn.execute("PRAGMA foreign_keys=ON")
        await self.conn.execute("PRAGMA busy_timeout=5000")

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction: committed on success, rolled back on error.

        BEGIN IMMEDIATE takes the write lock up front, so two writers queue
        on busy_timeout instead of failing half-way.
        """
        async with self._transaction_lock:
            try:
                await self.conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self.conn
                except BaseException:
                    await self.conn.rollback()
                    raise
                await self.conn.commit()
            except sqlite3.Error as exc:
                raise storage_error(exc) from exc

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> sqlite3.Row | None:
        """The first row of a query, or None."""
        try:
            async with self.conn.execute(sql, params) as cursor:
                return await cursor.fetchone()
        except sqlite3.Error as exc:
            raise storage_error(exc) from exc

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        """Every row of a query."""
        try:
            async with self.conn.execute(sql, params) as cursor:
                return list(await cursor.fetchall())
        except sqlite3.Error as exc:
            raise storage_error(exc) from exc

    async def close(self) -> None:
        """Close the connection; closing twice is harmless."""
        await self.conn.close()


def available_migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) for every migration file, in order."""
    found = []
    for item in resources.files("paperbot.storage.migrations").iterdir():
        match = _MIGRATION_NAME.match(item.name)
        if match:
            found.append((int(match.group(1)), item.name, item.read_text(encoding="utf-8")))
    found.sort()
    versions = [version for version, _, _ in found]
    if versions != list(range(1, len(found) + 1)):
        raise StorageError(f"migrations must be numbered 1..n without gaps, found {versions}")
    return found


async def schema_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def migrate(conn: aiosqlite.Connection) -> int:
    """Apply every migration newer than `PRAGMA user_version`; return the version."""
    current = await schema_version(conn)
    migrations = available_migrations()
    if current > len(migrations):
        raise StorageError(
            f"database schema is version {current}, newer than this paperbot "
            f"({len(migrations)}); upgrade paperbot"
        )
    for version, name, sql in migrations[current:]:
        log.info("applying migration %s", name)
        # executescript would COMMIT first; run statements inside one explicit
        # transaction so a failed migration leaves the previous version intact.
        await conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(sql):
                await conn.execute(statement)
            await conn.execute(f"PRAGMA user_version = {version:d}")
        except BaseException:
            await conn.rollback()
            raise
        await conn.commit()
        current = version
    return current


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (migrations hold no `;` in strings)."""
    lines = [line for line in sql.splitlines() if not line.lstrip().startswith("--")]
    return [part.strip() for part in "\n".join(lines).split(";") if part.strip()]
