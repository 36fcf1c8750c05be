"""Every SQL statement of `paperbot doctor`: integrity and orphan rows."""

from __future__ import annotations

from paperbot.storage.backend import Database, dialect_sql

# Orphans are counted and a few shown: a broken database can hold thousands.
SHOWN = 5


async def integrity_check(db: Database, limit: int = 20) -> list[str]:
    """`PRAGMA integrity_check`: ["ok"], or up to `limit` descriptions of damage.
    PostgreSQL checks its pages itself (checksums, WAL): it answers "ok"."""
    sql = dialect_sql(db, sqlite=f"PRAGMA integrity_check({int(limit)})", postgresql="SELECT 'ok'")
    return [str(row[0]) for row in await db.fetch_all(sql)]


async def foreign_key_violations(db: Database) -> list[str]:
    """Rows whose declared reference points nowhere, as 'table rowid -> parent'."""
    if db.dialect != "sqlite":
        return []  # PostgreSQL enforces every reference on every write
    rows = await db.fetch_all("PRAGMA foreign_key_check")
    return [f"{table} row {rowid} -> {parent}" for table, rowid, parent, _ in rows]


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
            dialect_sql(
                db,
                sqlite="SELECT DISTINCT k.value FROM digest_posts AS d,"
                " json_each(d.paper_keys) AS k",
                postgresql="SELECT DISTINCT k.value FROM digest_posts AS d,"
                " jsonb_array_elements_text(d.paper_keys) AS k(value)",
            )
            + " WHERE NOT EXISTS (SELECT 1 FROM papers AS p WHERE p.key = k.value)",
        ),
    )
    found = []
    for what, sql in checks:
        keys = [str(row[0]) for row in await db.fetch_all(sql)]
        if keys:
            shown = ", ".join(repr(k) for k in keys[:SHOWN])
            more = f" and {len(keys) - SHOWN} more" if len(keys) > SHOWN else ""
            found.append(f"{what}: {len(keys)} keys ({shown}{more})")
    return found


async def retired_count(db: Database) -> int:
    row = await db.fetch_one("SELECT count(*) FROM papers WHERE retired_at IS NOT NULL")
    return int(row[0]) if row else 0


async def schema_version(db: Database) -> int:
    """The number of the last migration applied (SQLite: `PRAGMA user_version`)."""
    sql = dialect_sql(
        db,
        sqlite="PRAGMA user_version",
        postgresql="SELECT coalesce(max(version), 0) FROM paperbot_schema",
    )
    row = await db.fetch_one(sql)
    return int(row[0]) if row else 0
