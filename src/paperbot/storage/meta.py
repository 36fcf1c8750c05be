"""Small key/value state kept beside the data (corpus version, sync hash)."""

from __future__ import annotations

from paperbot.storage.backend import Database


async def get_meta(db: Database, key: str) -> str | None:
    row = await db.fetch_one("SELECT value FROM meta WHERE key = ?", (key,))
    return str(row[0]) if row else None


async def set_meta(db: Database, key: str, value: str) -> None:
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


async def meta_keys(db: Database, prefix: str) -> list[str]:
    """Keys starting with `prefix`, sorted."""
    sql = "SELECT key FROM meta WHERE substr(key, 1, ?) = ? ORDER BY key"
    return [str(key) for (key,) in await db.fetch_all(sql, (len(prefix), prefix))]


async def delete_meta(db: Database, key: str) -> None:
    async with db.transaction() as conn:
        await conn.execute("DELETE FROM meta WHERE key = ?", (key,))
