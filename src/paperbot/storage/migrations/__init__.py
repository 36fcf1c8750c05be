"""The numbered migrations of both backends (SQL files, `available_migrations`),
and how SQLite applies its own (`migrate`: a file split into statements, run
one by one inside one transaction; PostgreSQL takes a file whole)."""

from __future__ import annotations

import logging
import re
import sqlite3
from importlib import resources

import aiosqlite

from paperbot.storage.errors import StorageError

log = logging.getLogger(__name__)

_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def statements(sql: str) -> list[str]:
    """Split a migration into statements (migrations hold no `;` in strings).
    A trigger's body is kept whole: its `;`s end nothing before `END;`."""
    lines = [line for line in sql.splitlines() if not line.lstrip().startswith("--")]
    found, pending = [], ""
    for part in "\n".join(lines).split(";"):
        pending += part + ";"
        if sqlite3.complete_statement(pending):
            found.append(pending.strip().removesuffix(";").strip())
            pending = ""
    return [statement for statement in [*found, pending.strip(" \n;")] if statement]


def available_migrations(dialect: str = "sqlite") -> list[tuple[int, str, str]]:
    """(version, name, sql) for every migration file of a backend, in order:
    SQLite's in `migrations/`, PostgreSQL's in `migrations/postgresql/`."""
    folder = resources.files("paperbot.storage.migrations")
    if dialect != "sqlite":
        folder = folder / dialect
    found = []
    for item in folder.iterdir():
        match = _MIGRATION_NAME.match(item.name)
        if match:
            found.append((int(match.group(1)), item.name, item.read_text(encoding="utf-8")))
    found.sort()
    versions = [version for version, _, _ in found]
    if versions != list(range(1, len(found) + 1)):
        raise StorageError(f"migrations must be numbered 1..n without gaps, found {versions}")
    return found


def refuse_newer(current: int, known: int) -> None:
    """Refuse a database a newer paperbot migrated (schema version `current`
    past the `known` migrations): this code cannot know its tables."""
    if current > known:
        raise StorageError(
            f"database schema is version {current}, newer than this paperbot "
            f"({known}); upgrade paperbot"
        )


async def schema_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def migrate(conn: aiosqlite.Connection) -> int:
    """Apply every migration newer than `PRAGMA user_version`; return the version."""
    current = await schema_version(conn)
    migrations = available_migrations()
    refuse_newer(current, len(migrations))
    for version, name, sql in migrations[current:]:
        log.info("applying migration %s", name)
        await _apply_migration(conn, version, sql)
        current = version
    return current


async def _apply_migration(conn: aiosqlite.Connection, version: int, sql: str) -> None:
    """One migration in one transaction, with foreign keys off while it runs.

    executescript would COMMIT first; explicit statements inside one
    transaction leave the previous version intact if one fails. Foreign keys
    are off because a table rebuild drops the old table, and with them on that
    drop would cascade into the rows just copied (the SQLite-documented way);
    `foreign_key_check` then proves the result consistent before the commit.
    """
    await conn.execute("PRAGMA foreign_keys=OFF")
    try:
        await conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in statements(sql):
                await conn.execute(statement)
            async with conn.execute("PRAGMA foreign_key_check") as cursor:
                broken = list(await cursor.fetchall())
            if broken:
                raise StorageError(f"migration {version} leaves broken references: {broken[:3]}")
            await conn.execute(f"PRAGMA user_version = {version:d}")
        except BaseException:
            await conn.rollback()
            raise
        await conn.commit()
    finally:
        await conn.execute("PRAGMA foreign_keys=ON")
