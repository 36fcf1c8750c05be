"""Every SQL statement about data owned by a reader or a server, by table.

The services name the tables (`OwnedTable`, one per kind of data, listed in
`services.user_data`); this module counts, exports and deletes their rows,
per user in a server or for a whole server, each delete in one transaction.
Table and column names come from code, never from users, and are checked
against a plain identifier pattern all the same.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from paperbot.storage.backend import Database, dialect_sql

_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]*$")


@dataclass(frozen=True, slots=True)
class OwnedTable:
    """A table of rows owned by a reader in a server (`guild_id` and `user_id`
    columns), by a server alone (`per_user=False`: settings, posting history)
    or by a reader in every server (`per_guild=False`: a setting that follows
    the reader, which their /mydata in any server shows and deletes)."""

    table: str
    # Export order; every table names one (PostgreSQL has no rowid).
    order_by: str
    per_user: bool = True
    per_guild: bool = True

    def __post_init__(self) -> None:
        for name in (self.table, self.order_by):
            if not _IDENTIFIER.match(name):
                raise ValueError(f"not a plain SQL identifier: {name!r}")
        if not (self.per_user or self.per_guild):
            raise ValueError(f"{self.table}: rows must belong to a server, a user or both")

    def where(self, guild_id: int, user_id: int | None) -> tuple[str, tuple[int, ...]]:
        """The rows of this user in this server, or of the whole server (None)."""
        if user_id is None:
            if not self.per_guild:
                raise ValueError(f"{self.table} holds no per-server rows")
            return "guild_id = ?", (guild_id,)
        if not self.per_user:
            raise ValueError(f"{self.table} holds no per-user rows")
        if not self.per_guild:
            return "user_id = ?", (user_id,)
        return "guild_id = ? AND user_id = ?", (guild_id, user_id)


async def count_rows(db: Database, table: OwnedTable, guild_id: int, user_id: int | None) -> int:
    """Rows of `table` about this user in this server (or the whole server)."""
    where, params = table.where(guild_id, user_id)
    row = await db.fetch_one(f"SELECT count(*) FROM {table.table} WHERE {where}", params)
    return int(row[0]) if row else 0


async def export_rows(
    db: Database, table: OwnedTable, guild_id: int, user_id: int
) -> list[dict[str, Any]]:
    """This user's rows in this server, every column, oldest first."""
    where, params = table.where(guild_id, user_id)
    columns = await _columns(db, table.table)
    sql = f"SELECT {', '.join(columns)} FROM {table.table} WHERE {where} ORDER BY {table.order_by}"
    rows = await db.fetch_all(sql, params)
    return [dict(zip(columns, row, strict=True)) for row in rows]


async def _columns(db: Database, table: str) -> list[str]:
    """The table's column names, in declaration order."""
    sql = dialect_sql(
        db,
        sqlite="SELECT name FROM pragma_table_info(?) ORDER BY cid",
        postgresql="SELECT column_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position",
    )
    return [str(row[0]) for row in await db.fetch_all(sql, (table,))]


async def delete_rows(
    db: Database, tables: Sequence[OwnedTable], guild_id: int, user_id: int
) -> dict[str, int]:
    """Delete what `tables` hold about this user in this server, all or
    nothing; rows removed per table."""
    removed: dict[str, int] = {}
    async with db.transaction() as conn:
        for table in tables:
            where, params = table.where(guild_id, user_id)
            cur = await conn.execute(f"DELETE FROM {table.table} WHERE {where}", params)
            removed[table.table] = max(cur.rowcount, 0)
    return removed


async def purge_guild(
    db: Database, tables: Sequence[OwnedTable], guild_id: int, left_before: datetime
) -> dict[str, int] | None:
    """Delete everything `tables` hold about this server and its departure, all
    or nothing, if it left before `left_before`; None (nothing deleted) when
    it came back meanwhile or left later."""
    removed: dict[str, int] = {}
    async with db.transaction() as conn:
        await conn.lock(f"guild-departure:{guild_id}")
        row = await conn.fetch_one(
            "SELECT left_at FROM guild_departures WHERE guild_id = ?", (guild_id,)
        )
        if row is None or datetime.fromisoformat(row[0]) > left_before:
            return None
        for table in tables:
            where, params = table.where(guild_id, None)
            cur = await conn.execute(f"DELETE FROM {table.table} WHERE {where}", params)
            removed[table.table] = max(cur.rowcount, 0)
        await conn.execute("DELETE FROM guild_departures WHERE guild_id = ?", (guild_id,))
    return removed


async def guilds_with_rows(db: Database, tables: Sequence[OwnedTable]) -> set[int]:
    """Every server any of `tables` holds rows of."""
    selects = [f"SELECT guild_id FROM {t.table}" for t in tables if t.per_guild]
    if not selects:
        return set()
    return {int(row[0]) for row in await db.fetch_all(" UNION ".join(selects))}


# ------------------------------------------------------------- departures


async def record_departure(db: Database, guild_id: int, now: datetime) -> None:
    """The bot left this server now (a second event keeps the first time)."""
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO guild_departures (guild_id, left_at) VALUES (?, ?)"
            " ON CONFLICT (guild_id) DO NOTHING",
            (guild_id, now.isoformat()),
        )


async def cancel_departure(db: Database, guild_id: int) -> bool:
    """The bot is in this server again; True when a departure was pending."""
    async with db.transaction() as conn:
        cur = await conn.execute("DELETE FROM guild_departures WHERE guild_id = ?", (guild_id,))
    return bool(cur.rowcount)


async def departures(db: Database) -> list[tuple[int, datetime]]:
    """Every pending departure, oldest first."""
    rows = await db.fetch_all(
        "SELECT guild_id, left_at FROM guild_departures ORDER BY left_at, guild_id"
    )
    return [(int(row[0]), datetime.fromisoformat(row[1])) for row in rows]
