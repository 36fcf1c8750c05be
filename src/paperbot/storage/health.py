"""Every SQL statement of `paperbot doctor`: integrity and orphan rows."""

from __future__ import annotations

from paperbot.storage.db import Database

# Orphans are counted and a few shown: a broken database can hold thousands.
SHOWN = 5


async def integrity_check(db: Database, limit: int = 20) -> list[str]:
    """`PRAGMA integrity_check`: ["ok"], or up to `limit` descriptions of damage."""
    async with db.conn.execute(f"PRAGMA integrity_check({int(limit)})") as cur:
        return [str(row[0]) for row in await cur.fetchall()]


async def foreign_key_violations(db: Database) -> list[str]:
    """Rows whose declared reference points nowhere, as 'table rowid -> parent'."""
    async with db.conn.execute("PRAGMA foreign_key_check") as cur:
        return [
            f"{table} row {rowid} -> {parent}" for table, rowid, parent, _ in await cur.fetchall()
        ]


async def orphan_history(db: Database) -> list[str]:
    """History naming a paper key that has no paper row (retired rows count as
    present: they exist so that history can keep naming them)."""
    checks = (
        (
            "digest_posted rows name papers that do not exist",
            "SELECT DISTINCT paper_key FROM digest_posted AS d"
            " WHERE NOT EXISTS (SELECT 1 FROM papers AS p WHERE p.key = d.paper_key)",
        ),
        (
            "digest posts name papers that do not exist",
            "SELECT DISTINCT k.value FROM digest_posts AS d, json_each(d.paper_keys) AS k"
            " WHERE NOT EXISTS (SELECT 1 FROM papers AS p WHERE p.key = k.value)",
        ),
    )
    found = []
    for what, sql in checks:
        async with db.conn.execute(sql) as cur:
            keys = [str(row[0]) for row in await cur.fetchall()]
        if keys:
            shown = ", ".join(repr(k) for k in keys[:SHOWN])
            more = f" and {len(keys) - SHOWN} more" if len(keys) > SHOWN else ""
            found.append(f"{what}: {len(keys)} keys ({shown}{more})")
    return found


async def retired_count(db: Database) -> int:
    async with db.conn.execute("SELECT count(*) FROM papers WHERE retired_at IS NOT NULL") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0
