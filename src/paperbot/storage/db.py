"""The SQLite backend: pragmas, transactions, its migrations applied on open.

`SqliteDatabase` implements the `Database` protocol of storage/backend.py;
both backends' errors (storage/errors.py) and the migration files
(storage/migrations) are importable from here too.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal, TypeVar

import aiosqlite

from paperbot.storage.backend import Executed, Row

# Both backends' errors and the migration files, importable from here as before.
from paperbot.storage.errors import ConstraintError as ConstraintError
from paperbot.storage.errors import CorruptDatabase as CorruptDatabase
from paperbot.storage.errors import StorageError as StorageError
from paperbot.storage.errors import closed_database
from paperbot.storage.migrations import available_migrations as available_migrations
from paperbot.storage.migrations import migrate

log = logging.getLogger(__name__)

#: SQLite's own wait for another connection's lock, per attempt.
BUSY_TIMEOUT_MS = 5000
#: How long to keep retrying (with backoff) a lock another process holds.
LOCK_WAIT_SECONDS = 30.0
_T = TypeVar("_T")


_DAMAGE_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def damage(exc: BaseException, path: Path) -> CorruptDatabase | None:
    """The CorruptDatabase that an SQLite error means, or None if it is no damage
    (a locked database, a full disk, ... are other faults)."""
    if isinstance(exc, CorruptDatabase):
        return exc
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(exc, sqlite3.DatabaseError) and code is not None and code & 0xFF in _DAMAGE_CODES:
        return CorruptDatabase(path, str(exc))
    return None


class SqliteTransaction:
    """The `Transaction` of the SQLite backend: the one connection, inside BEGIN."""

    def __init__(self, db: SqliteDatabase) -> None:
        self._db = db

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> Executed:
        async with self._db.conn.execute(sql, tuple(params)) as cursor:
            return Executed(cursor.rowcount, cursor.lastrowid)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self._db.conn.executemany(sql, rows)

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> Row | None:
        return await self._db.fetch_one(sql, params)

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        return await self._db.fetch_all(sql, params)

    async def lock(self, name: str) -> None:
        """Nothing to do: BEGIN IMMEDIATE already holds the one write lock."""


class SqliteDatabase:
    """One aiosqlite connection with WAL, foreign keys and migrations applied."""

    dialect: Literal["sqlite"] = "sqlite"

    def __init__(
        self,
        conn: aiosqlite.Connection,
        path: Path,
        *,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        lock_wait_seconds: float = LOCK_WAIT_SECONDS,
    ) -> None:
        self._conn = conn
        self._closed = False
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self.lock_wait_seconds = lock_wait_seconds
        # One connection serves every coroutine: transactions must take turns,
        # or a second BEGIN fails with "cannot start a transaction within a transaction".
        self._transaction_lock = asyncio.Lock()

    @classmethod
    async def open(
        cls,
        path: Path | str,
        *,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        lock_wait_seconds: float = LOCK_WAIT_SECONDS,
        check: bool = True,  # False: a second connection to a file its opener checked
    ) -> SqliteDatabase:
        path = Path(path)
        if str(path) != ":memory:":
            _check_location(path)
        conn = await _connect(path)
        db = cls(conn, path, busy_timeout_ms=busy_timeout_ms, lock_wait_seconds=lock_wait_seconds)
        try:
            await db._configure()
            await db._quick_check(skip=not check)
            await db.retry_locked(lambda: migrate(conn))
        except sqlite3.Error as exc:
            await conn.close()
            raise db.error(exc, fallback="cannot open") from exc
        except BaseException:
            await conn.close()
            raise
        return db

    @classmethod
    async def open_read_only(cls, path: Path | str) -> SqliteDatabase:
        """A connection for inspection (`paperbot doctor`): no migration, no
        check, nothing written; a missing file is an error, not a new database."""
        path = Path(path)
        try:
            conn = await aiosqlite.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
            await conn.execute("PRAGMA busy_timeout=5000")
        except sqlite3.Error as exc:
            raise damage(exc, path) or StorageError(f"cannot open database {path}: {exc}") from exc
        return cls(conn, path)

    @property
    def conn(self) -> aiosqlite.Connection:
        """The connection; once closed, a use is refused in one line (as on
        PostgreSQL), not with aiosqlite's bare ValueError."""
        if self._closed:
            raise closed_database(self.location)
        return self._conn

    @property
    def location(self) -> str:
        return str(self.path)

    @property
    def target(self) -> str:
        return str(self.path.absolute())

    async def _quick_check(self, *, skip: bool = False) -> None:
        """Refuse a damaged file before any command reads half of it.

        quick_check walks every page's b-tree structure but not the indexes'
        contents (that is `integrity_check`, in `paperbot doctor`); on a
        100k-paper database it costs about as much as reading the file once.
        """
        if skip or str(self.path) == ":memory:":
            return
        async with self.conn.execute("PRAGMA quick_check(1)") as cursor:
            row = await cursor.fetchone()
        if row is None or row[0] != "ok":
            raise CorruptDatabase(self.path, str(row[0]) if row else "quick_check said nothing")

    async def _configure(self) -> None:
        await self.conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
        # WAL lets the CLI read while the bot writes; NORMAL sync is safe with WAL.
        await self.retry_locked(lambda: self.conn.execute("PRAGMA journal_mode=WAL"))
        await self.conn.execute("PRAGMA synchronous=NORMAL")
        await self.conn.execute("PRAGMA foreign_keys=ON")

    def error(self, exc: sqlite3.Error, fallback: str = "") -> StorageError:
        """One line for the user: which file, what went wrong, what to do."""
        if isinstance(exc, sqlite3.IntegrityError):
            return ConstraintError(str(exc))
        return damage(exc, self.path) or StorageError(
            describe_sqlite_error(self.path, exc, fallback=fallback)
        )

    async def retry_locked(self, operation: Callable[[], Awaitable[_T]]) -> _T:
        """Run `operation`; while another process holds the lock past the busy
        timeout, try again with backoff for up to `lock_wait_seconds`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.lock_wait_seconds
        pause = 0.1
        while True:
            try:
                return await operation()
            except sqlite3.OperationalError as exc:
                if not _is_locked(exc) or loop.time() + pause > deadline:
                    raise
                log.warning("database %s is locked; retrying in %.1fs", self.path, pause)
            await asyncio.sleep(pause)
            pause = min(pause * 2, 5.0)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SqliteTransaction]:
        """One write transaction: committed on success, rolled back on error.

        BEGIN IMMEDIATE takes the write lock up front, so two writers queue
        on busy_timeout (then `retry_locked`) instead of failing half-way. A
        SQLite failure (locked, disk full, read-only) rolls back, so nothing
        is half-written, and becomes one `StorageError` line.
        """
        async with self._transaction_lock:
            try:
                await self.retry_locked(lambda: self.conn.execute("BEGIN IMMEDIATE"))
            except sqlite3.Error as exc:
                raise self.error(exc) from exc
            try:
                yield SqliteTransaction(self)
                # Shielded: a cancel while COMMIT is queued must not report
                # "rolled back" for a commit that then happens anyway.
                await asyncio.shield(self.conn.commit())
            except BaseException as exc:
                if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt):
                    # Ctrl-C or shutdown: the statement still running in the
                    # worker thread would run to its end before the rollback.
                    await self.conn.interrupt()
                if self.conn.in_transaction:
                    await self.conn.rollback()
                if isinstance(exc, sqlite3.Error):
                    raise self.error(exc) from exc
                raise

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> Row | None:
        """The first row of a query, or None."""
        try:
            async with self.conn.execute(sql, params) as cursor:
                return await cursor.fetchone()
        except sqlite3.Error as exc:
            raise self.error(exc) from exc

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        """Every row of a query."""
        try:
            async with self.conn.execute(sql, params) as cursor:
                return list(await cursor.fetchall())
        except sqlite3.Error as exc:
            raise self.error(exc) from exc

    async def stream(
        self, sql: str, params: Iterable[Any] = (), batch: int = 5000
    ) -> AsyncIterator[Row]:
        """Rows fetched `batch` at a time, so a large result is never all held."""
        try:
            async with self.conn.execute(sql, tuple(params)) as cursor:
                while rows := await cursor.fetchmany(batch):
                    for row in rows:
                        yield row
        except sqlite3.Error as exc:
            raise self.error(exc) from exc

    async def hold(self, name: str) -> bool:  # noqa: ARG002 (the protocol's signature)
        """One process per SQLite file: nothing else can hold `name`."""
        return True

    async def notify(self, channel: str, payload: str) -> None:
        """One process per file: it already knows what it changed."""

    async def listen(self, channel: str, callback: Callable[[str], None]) -> None:
        """One process per file: no other process can change anything."""

    async def close(self) -> None:
        """Close the connection; closing twice is harmless."""
        self._closed = True
        await self._conn.close()


#: The SQLite backend under the name callers that open files directly use.
Database = SqliteDatabase


def _check_location(path: Path) -> None:
    """Create the database's folder; refuse what can't hold a database."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(
            f"cannot create the database folder {path.parent}: {exc.strerror}"
        ) from None
    if path.exists() and not path.is_file():
        raise StorageError(
            f"database {path} is not a regular file: set database.path / PAPERBOT_DB to a file"
        )


async def _connect(path: Path) -> aiosqlite.Connection:
    connection = aiosqlite.connect(path, isolation_level=None)
    try:
        return await connection
    except sqlite3.Error as exc:
        # aiosqlite stops its worker thread after a failed connect but nobody
        # waits for it: let it finish while the loop still runs, or it reports
        # "Event loop is closed" from its thread after we exit.
        worker = getattr(connection, "_thread", None)
        if worker is not None:
            await asyncio.to_thread(worker.join, 5.0)
        raise StorageError(
            f"cannot open database {path}: {exc} (is its folder writable?)"
        ) from None


def _is_locked(exc: sqlite3.OperationalError) -> bool:
    text = str(exc)
    return "database is locked" in text or "database is busy" in text


def describe_sqlite_error(path: Path, exc: sqlite3.Error, fallback: str = "") -> str:
    """A SQLite failure as one line naming the file and what to do (`fallback`
    goes before "database" when the failure is none of the known ones)."""
    text = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and _is_locked(exc):
        return f"database {path} is locked by another process; try again when it has finished"
    if "database or disk is full" in text:
        return f"database {path} is full (no space left): nothing was changed; free some space"
    if "readonly" in text or "read-only" in text:
        return f"database {path} is read-only: nothing was changed; make it and its folder writable"
    return f"{fallback} database {path}: {text}".lstrip()
