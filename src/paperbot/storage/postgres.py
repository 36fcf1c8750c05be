"""The PostgreSQL backend (asyncpg): one database shared by several processes.

Storage modules write `?` / `?1` placeholders; `to_postgres` rewrites them
to `$n` once per statement text. Write transactions run at READ COMMITTED;
a transaction that reads and then writes on what it read takes
`tx.lock(name)` first (a transaction-scoped advisory lock), which on SQLite
is a no-op because BEGIN IMMEDIATE already serialises writers. Migrations
live in `migrations/postgresql/`, numbered like SQLite's, and are tracked in
the `paperbot_schema` table.
"""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit, urlunsplit

import asyncpg

from paperbot.storage.backend import Executed, Row
from paperbot.storage.errors import ConstraintError, StorageError, closed_database
from paperbot.storage.migrations import available_migrations, refuse_newer

log = logging.getLogger(__name__)

_TOKENS = re.compile(r"'(?:[^']|'')*'|\?(\d*)")
#: The connection of the transaction this task is in, per database.
_CURRENT: ContextVar[tuple[PostgresDatabase, Any] | None] = ContextVar(
    "paperbot_pg_transaction", default=None
)
POOL_SIZE = 10
#: What asyncpg raises for a failed query, a closed pool or a lost server.
_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError)
VERSION_TABLE = "paperbot_schema"


@lru_cache(maxsize=2048)
def to_postgres(sql: str) -> str:
    """`?` -> `$1, $2, ...` in order and `?N` -> `$N`; string literals are kept."""
    counter = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal counter
        text = match.group(0)
        if text.startswith("'"):
            return text
        if match.group(1):
            return "$" + match.group(1)
        counter += 1
        return f"${counter}"

    return _TOKENS.sub(replace, sql)


def redacted(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _schema_of(url: str) -> str | None:
    """The schema a `?search_path=name` URL asks for (tests and side-by-side installs)."""
    values = parse_qs(urlsplit(url).query).get("search_path")
    return values[0] if values else None


class PostgresTransaction:
    """The `Transaction` of the PostgreSQL backend: one pooled connection."""

    def __init__(self, db: PostgresDatabase, conn: Any) -> None:
        self._db = db
        self._conn = conn

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> Executed:
        status = await self._db.run(self._conn.execute, sql, params)
        # asyncpg returns the command tag: "UPDATE 3", "INSERT 0 1", "DELETE 0".
        tail = str(status).rsplit(" ", 1)[-1]
        return Executed(int(tail) if tail.isdigit() else 0)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        batch = [tuple(row) for row in rows]
        if batch:
            await self._db.run_many(self._conn, sql, batch)

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> Row | None:
        row: Row | None = await self._db.run(self._conn.fetchrow, sql, params)
        return row

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        return list(await self._db.run(self._conn.fetch, sql, params))

    async def lock(self, name: str) -> None:
        """Hold `name` until this transaction ends (other processes wait)."""
        await self._db.run(self._conn.execute, "SELECT pg_advisory_xact_lock(hashtext(?))", [name])


class PostgresDatabase:
    """An asyncpg pool over a migrated PostgreSQL database."""

    dialect: Literal["postgresql"] = "postgresql"

    def __init__(self, pool: Any, url: str) -> None:
        self.pool = pool
        self.url = url
        # The connection holding this process's session locks (`hold`): it
        # lives as long as the process, and PostgreSQL frees the locks when it dies.
        self._holder: Any = None
        self._holder_lock = asyncio.Lock()
        # Uses of the pool under way: close() waits for them, because
        # asyncpg's Pool.close() does not wait for a connection still being
        # opened (before 0.31 that connection was left open, unowned).
        self._in_use = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._closing = False

    @property
    def location(self) -> str:
        return redacted(self.url)

    @property
    def target(self) -> str:
        return self.url

    @classmethod
    async def open(cls, url: str, *, pool_size: int = POOL_SIZE) -> PostgresDatabase:
        schema = _schema_of(url)
        try:
            if schema is not None:
                await _create_schema(url, schema)
            pool = await asyncpg.create_pool(url, min_size=1, max_size=pool_size)
        except _ERRORS as exc:
            raise StorageError(f"cannot open database {redacted(url)}: {exc}") from None
        db = cls(pool, url)
        try:
            async with pool.acquire() as conn:
                await migrate(conn)
        except _ERRORS as exc:
            await pool.close()
            raise db.error(exc) from exc
        except BaseException:
            await pool.close()
            raise
        return db

    def error(self, exc: Exception) -> StorageError:
        if isinstance(exc, asyncpg.IntegrityConstraintViolationError):
            return ConstraintError(str(exc))
        return StorageError(f"database {self.location}: {exc}")

    async def run(self, method: Any, sql: str, params: Iterable[Any]) -> Any:
        """`method(sql, *params)` with PostgreSQL's errors turned into ours."""
        try:
            return await method(to_postgres(sql), *params)
        except _ERRORS as exc:
            raise self.error(exc) from exc

    async def run_many(self, conn: Any, sql: str, rows: list[tuple[Any, ...]]) -> None:
        try:
            await conn.executemany(to_postgres(sql), rows)
        except _ERRORS as exc:
            raise self.error(exc) from exc

    def _refuse_if_closing(self) -> None:
        if self._closing:
            raise closed_database(self.location)

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[Any]:
        """A pooled connection, counted so that close() waits for it; its
        errors (the pool's own too: closed, connection refused) are ours."""
        self._refuse_if_closing()
        self._in_use += 1
        self._idle.clear()
        try:
            async with self.pool.acquire() as conn:
                yield conn
        except _ERRORS as exc:
            raise self.error(exc) from exc
        finally:
            self._in_use -= 1
            if self._in_use == 0:
                self._idle.set()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PostgresTransaction]:
        """One transaction on one pooled connection; `fetch_one`/`fetch_all`
        on this database inside it read through the same connection."""
        current = _CURRENT.get()
        if current is not None and current[0] is self:
            raise StorageError("nested transaction: finish the open one first")
        async with self._connection() as conn, conn.transaction():
            token = _CURRENT.set((self, conn))
            try:
                yield PostgresTransaction(self, conn)
            finally:
                _CURRENT.reset(token)

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> Row | None:
        current = _CURRENT.get()
        if current is not None and current[0] is self:
            row: Row | None = await self.run(current[1].fetchrow, sql, params)
            return row
        async with self._connection() as conn:
            found: Row | None = await self.run(conn.fetchrow, sql, params)
        return found

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        current = _CURRENT.get()
        if current is not None and current[0] is self:
            return list(await self.run(current[1].fetch, sql, params))
        async with self._connection() as conn:
            return list(await self.run(conn.fetch, sql, params))

    async def stream(
        self, sql: str, params: Iterable[Any] = (), batch: int = 5000
    ) -> AsyncIterator[Row]:
        """A server-side cursor (asyncpg needs a transaction for one)."""
        async with self._connection() as conn, conn.transaction():
            async for row in conn.cursor(to_postgres(sql), *params, prefetch=batch):
                yield row

    @asynccontextmanager
    async def _session(self) -> AsyncIterator[Any]:
        """This process's long-lived connection (its session locks and
        LISTENs), one user at a time: a connection runs one operation at
        once, and two first users would each open one."""
        async with self._holder_lock:
            self._refuse_if_closing()
            try:
                if self._holder is None:
                    self._holder = await asyncpg.connect(self.url)
                yield self._holder
            except _ERRORS as exc:
                raise self.error(exc) from exc

    async def hold(self, name: str) -> bool:
        """A session advisory lock on a connection of its own: a lease that
        ends when this process (or its connection) does."""
        async with self._session() as session:
            taken = await session.fetchval("SELECT pg_try_advisory_lock(hashtext($1))", name)
        return bool(taken)

    async def notify(self, channel: str, payload: str) -> None:
        async with self._connection() as conn:
            await self.run(conn.execute, "SELECT pg_notify(?, ?)", (channel, payload))

    async def listen(self, channel: str, callback: Callable[[str], None]) -> None:
        def deliver(_conn: Any, _pid: int, _channel: str, payload: str) -> None:
            callback(payload)

        async with self._session() as session:
            await session.add_listener(channel, deliver)

    async def close(self) -> None:
        """Close the pool (and the lock holder) once the queries under way
        are answered; a query after it is refused; closing twice is harmless."""
        self._closing = True
        await self._idle.wait()
        async with self._holder_lock:
            if self._holder is not None:
                await self._holder.close()
                self._holder = None
        await self.pool.close()


async def _create_schema(url: str, schema: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema.replace(chr(34), "")}"')
    except (asyncpg.UniqueViolationError, asyncpg.DuplicateSchemaError):
        # IF NOT EXISTS is not atomic: two processes starting together can both
        # miss the schema and one of them loses the race. It exists: fine.
        pass
    finally:
        await conn.close()


async def migrate(conn: Any) -> int:
    """Apply every PostgreSQL migration newer than `paperbot_schema`, all in
    one transaction under an advisory lock: processes starting together
    migrate once, and a failed migration leaves the previous version."""
    migrations = available_migrations("postgresql")
    async with conn.transaction():
        await conn.execute(
            "SELECT pg_advisory_xact_lock(hashtext('paperbot-migrate:' || current_schema()))"
        )
        await conn.execute(
            f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (version INTEGER PRIMARY KEY,"
            " name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        current = int(await conn.fetchval(f"SELECT coalesce(max(version), 0) FROM {VERSION_TABLE}"))
        refuse_newer(current, len(migrations))
        for version, name, sql in migrations[current:]:
            log.info("applying PostgreSQL migration %s", name)
            await conn.execute(sql)
            await conn.execute(
                f"INSERT INTO {VERSION_TABLE} (version, name) VALUES ($1, $2)", version, name
            )
            current = version
    return current


@asynccontextmanager
async def scratch_schema(url: str) -> AsyncIterator[str]:
    """A URL whose tables live in a new schema, dropped afterwards (benchmarks)."""
    schema = f"scratch_{uuid.uuid4().hex[:12]}"
    scratch = f"{url}{'&' if '?' in url else '?'}search_path={schema}"
    try:
        yield scratch
    finally:
        try:
            conn = await asyncpg.connect(url)
            try:
                await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            finally:
                await conn.close()
        except _ERRORS as exc:
            log.warning("could not drop the scratch schema %s: %s", schema, exc)
