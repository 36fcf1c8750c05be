"""Every SQL statement about papers."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from paperbot.core.load_plan import LoadPlan
from paperbot.core.models import Entry, FileSource, Paper, PaperRecord, Source, VenueCount
from paperbot.storage.backend import Database, Transaction, dialect_sql

CORPUS_VERSION_KEY = "corpus_version"
# Counts the loads that changed or removed papers (not only added some).
REWRITES_KEY = "corpus_rewrites"
FINGERPRINT_PREFIX = "file_fingerprint:"
SOURCE_PREFIX = "file_source:"
#: Papers written by one load from which SQLite gets a larger page cache.
BULK_ROWS = 10_000
#: Its size: room for the key index (~10 MB at 100,000 papers), which every
#: insert searches; the table's own pages, written once, may spill. 64 MB
#: wrote no faster and held ~50 MB more at the loading process's peak.
BULK_CACHE_KIB = 16 * 1024
#: The columns `paper_from_row` reads, in its order.
PAPER_COLUMNS = ("id", "title", "venue", "year", "area", "summaries", "entries")
_PAPER_COLUMNS = ", ".join(PAPER_COLUMNS)


async def records_touching(
    db: Database, files: Collection[str], keys: Collection[str]
) -> dict[str, PaperRecord]:
    """Stored papers that a load of these files can change, as records, by key:
    those with an entry from one of the files, or with one of the keys.

    Only these are decoded into Python objects, so reloading one file of a
    large corpus stays cheap in time and memory. Retired papers are left out:
    a page that lists one again brings it back through an insert (`apply_load`).
    """
    sql = dialect_sql(
        db,
        sqlite="SELECT key, title, venue, year, area, entries FROM papers"
        " WHERE retired_at IS NULL AND (key IN (SELECT value FROM json_each(?1))"
        " OR EXISTS (SELECT 1 FROM json_each(papers.entries) AS e"
        "  WHERE json_extract(e.value, '$.file') IN (SELECT value FROM json_each(?2))))",
        postgresql="SELECT key, title, venue, year, area, entries::text FROM papers"
        " WHERE retired_at IS NULL AND (key IN (SELECT jsonb_array_elements_text(?1::jsonb))"
        " OR EXISTS (SELECT 1 FROM jsonb_array_elements(papers.entries) AS e"
        "  WHERE e->>'file' IN (SELECT jsonb_array_elements_text(?2::jsonb))))",
    )
    params = (json.dumps(list(keys), ensure_ascii=False), json.dumps(list(files)))
    rows = await db.fetch_all(sql, params)
    return {
        key: PaperRecord(key, title, venue, year, area, _decode_entries(entries))
        for key, title, venue, year, area, entries in rows
    }


async def file_contents(db: Database, files: Collection[str]) -> tuple[int, set[str]]:
    """How many stored entries these files gave, and the keys of their papers."""
    if not files:
        return 0, set()  # the query would read every paper's entries to find none
    sql = dialect_sql(
        db,
        sqlite="SELECT p.key FROM papers AS p, json_each(p.entries) AS e"
        " WHERE json_extract(e.value, '$.file') IN (SELECT value FROM json_each(?))"
        " AND p.retired_at IS NULL",
        postgresql="SELECT p.key FROM papers AS p, jsonb_array_elements(p.entries) AS e"
        " WHERE e->>'file' IN (SELECT jsonb_array_elements_text(?::jsonb))"
        " AND p.retired_at IS NULL",
    )
    keys = [key for (key,) in await db.fetch_all(sql, (json.dumps(list(files)),))]
    return len(keys), set(keys)


async def keys_by_file(db: Database, files: Collection[str]) -> dict[str, set[str]]:
    """The keys of the papers each of these files gave at its last load."""
    if not files:
        return {}  # as `file_contents`
    sql = dialect_sql(
        db,
        sqlite="SELECT DISTINCT json_extract(e.value, '$.file'), p.key"
        " FROM papers AS p, json_each(p.entries) AS e"
        " WHERE json_extract(e.value, '$.file') IN (SELECT value FROM json_each(?))"
        " AND p.retired_at IS NULL",
        postgresql="SELECT DISTINCT e->>'file', p.key"
        " FROM papers AS p, jsonb_array_elements(p.entries) AS e"
        " WHERE e->>'file' IN (SELECT jsonb_array_elements_text(?::jsonb))"
        " AND p.retired_at IS NULL",
    )
    found: dict[str, set[str]] = {}
    for name, key in await db.fetch_all(sql, (json.dumps(list(files)),)):
        found.setdefault(name, set()).add(key)
    return found


async def file_sources(db: Database) -> dict[str, FileSource]:
    """Where each page was last loaded from, and when, by file name."""
    sql = "SELECT substr(key, ?), value FROM meta WHERE key LIKE CAST(? AS TEXT) || '%'"
    prefix = SOURCE_PREFIX
    rows = await db.fetch_all(sql, (len(prefix) + 1, prefix))
    sources = {}
    for name, value in rows:
        data = json.loads(value)
        sources[name] = FileSource(data["path"], datetime.fromisoformat(data["loaded_at"]))
    return sources


async def file_fingerprints(db: Database) -> dict[str, str]:
    """Fingerprints of the corpus files as last loaded, by file name."""
    sql = "SELECT substr(key, ?), value FROM meta WHERE key LIKE CAST(? AS TEXT) || '%'"
    prefix = FINGERPRINT_PREFIX
    rows = await db.fetch_all(sql, (len(prefix) + 1, prefix))
    return {row[0]: row[1] for row in rows}


# A paper whose searchable fields stay (only its line or area moved) keeps
# its `changed_version`: the indexes still hold it as it is. The CASE reads
# the row before this update.
_UPDATE = (
    "UPDATE papers SET changed_version = CASE WHEN title = ?1 AND venue = ?2"
    " AND year = ?3 AND summaries = ?6 THEN changed_version ELSE ?8 END,"
    " title = ?1, venue = ?2, year = ?3, area = ?4, entries = ?5,"
    " summaries = ?6, updated_at = ?7 WHERE key = ?9"
)


async def apply_load(
    db: Database,
    plan: LoadPlan,
    now: datetime,
    fingerprints: Mapping[str, str] | None = None,
    sources: Mapping[str, str] | None = None,
) -> None:
    """Apply a load plan in one transaction; bump the corpus version if anything changed.

    The files' fingerprints and the paths they were loaded from (`sources`,
    by file name) are stored in the same transaction, so a crash can never
    leave a fingerprint for data that was not written. Removed papers are
    retired, not deleted: history keeps naming them, and an insert of a
    retired key brings back the same row (same id, same key).
    """
    stamp = now.isoformat()
    async with db.transaction() as conn:
        # Processes starting together load the same pages: one at a time.
        await conn.lock("corpus-load")
        cache_size = await _bulk_cache(db, conn, len(plan.inserts) + len(plan.updates))
        # Every paper this load writes is tagged with the version it makes:
        # a stored index knows from it which of its papers changed since.
        changed = await _next_version(conn)
        await conn.executemany(
            "INSERT INTO papers (key, title, venue, year, area, entries, summaries,"
            " added_at, updated_at, changed_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (key) DO UPDATE SET title = excluded.title, venue = excluded.venue,"
            " year = excluded.year, area = excluded.area, entries = excluded.entries,"
            " summaries = excluded.summaries, updated_at = excluded.updated_at,"
            " retired_at = NULL, changed_version = excluded.changed_version",
            # Generators: rows are encoded as SQLite takes them, never all at once.
            ((*_row(r), stamp, stamp, changed) for r in plan.inserts),
        )
        await conn.executemany(
            _UPDATE, ((*_row(r)[1:], stamp, changed, r.key) for r in plan.updates)
        )
        await _restore_cache(conn, cache_size)
        await conn.executemany(
            "UPDATE papers SET retired_at = ?, updated_at = ?, changed_version = ? WHERE key = ?",
            [(stamp, stamp, changed, k) for k in plan.removals],
        )
        meta = [(FINGERPRINT_PREFIX + name, value) for name, value in (fingerprints or {}).items()]
        meta += [
            (SOURCE_PREFIX + name, json.dumps({"path": path, "loaded_at": stamp}))
            for name, path in (sources or {}).items()
        ]
        await conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            meta,
        )
        bump = (
            "INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key)"
            " DO UPDATE SET value = CAST(CAST(meta.value AS INTEGER) + 1 AS TEXT)"
        )
        if plan.inserts or plan.updates or plan.removals:
            await conn.execute(bump, (CORPUS_VERSION_KEY,))
        if plan.updates or plan.removals:
            # Papers already indexed changed: an index cannot just append.
            await conn.execute(bump, (REWRITES_KEY,))


async def _bulk_cache(db: Database, conn: Transaction, rows: int) -> int | None:
    """For a bulk write on SQLite, a larger page cache (its key index
    outgrows the 2 MB default, which then spills pages mid-transaction);
    returns the size to set back afterwards (a long-running bot does not
    keep the pages), or None when nothing changed."""
    if db.dialect != "sqlite" or rows < BULK_ROWS:
        return None
    row = await conn.fetch_one("PRAGMA cache_size")
    await conn.execute(f"PRAGMA cache_size=-{BULK_CACHE_KIB:d}")
    return int(row[0]) if row else None


async def _restore_cache(conn: Transaction, cache_size: int | None) -> None:
    """Set back what `_bulk_cache` changed (nothing when it returned None)."""
    if cache_size is not None:
        await conn.execute(f"PRAGMA cache_size={cache_size:d}")


async def _next_version(conn: Transaction) -> int:
    """The corpus version this load makes (read under the load lock)."""
    row = await conn.fetch_one("SELECT value FROM meta WHERE key = ?", (CORPUS_VERSION_KEY,))
    return (int(row[0]) if row else 0) + 1


async def corpus_version(db: Database) -> int:
    """A number that changes whenever any paper is added, changed or removed."""
    row = await db.fetch_one("SELECT value FROM meta WHERE key = ?", (CORPUS_VERSION_KEY,))
    return int(row[0]) if row else 0


async def list_papers(
    db: Database, venue: str | None = None, year: int | None = None
) -> list[Paper]:
    """Papers in id order, optionally for one venue (case-insensitive) and/or year."""
    sql = f"SELECT {_PAPER_COLUMNS} FROM papers WHERE retired_at IS NULL"
    # lower() on both sides: SQLite's and PostgreSQL's NOCASE rules differ.
    sql += " AND (CAST(?1 AS TEXT) IS NULL OR lower(venue) = lower(CAST(?1 AS TEXT)))"
    sql += " AND (CAST(?2 AS INTEGER) IS NULL OR year = ?2) ORDER BY id"
    return [paper_from_row(row) for row in await db.fetch_all(sql, (venue, year))]


async def get_papers(db: Database, ids: Sequence[int]) -> list[Paper]:
    """Papers with these ids, in the order asked (missing and retired ids are skipped)."""
    if not ids:
        return []
    # One round trip for the whole batch: json_each binds the list as one parameter.
    ids_of = dialect_sql(
        db, sqlite="json_each(?)", postgresql="jsonb_array_elements_text(?::jsonb) AS value"
    )
    sql = f"SELECT {_PAPER_COLUMNS} FROM papers"
    sql += f" WHERE id IN (SELECT CAST(value AS BIGINT) FROM {ids_of}) AND retired_at IS NULL"
    found = {
        row[0]: paper_from_row(row) for row in await db.fetch_all(sql, (json.dumps(list(ids)),))
    }
    return [found[i] for i in ids if i in found]


async def live_keys(db: Database) -> tuple[list[int], list[str]]:
    """Every live paper's id and key, in id order."""
    rows = await db.fetch_all("SELECT id, key FROM papers WHERE retired_at IS NULL ORDER BY id")
    return [int(row[0]) for row in rows], [str(row[1]) for row in rows]


async def paper_count(db: Database) -> int:
    row = await db.fetch_one("SELECT count(*) FROM papers WHERE retired_at IS NULL")
    return int(row[0]) if row else 0


async def venues(db: Database) -> list[VenueCount]:
    """Loaded venues and years with their paper counts, newest year first."""
    sql = "SELECT venue, year, count(*) FROM papers WHERE retired_at IS NULL"
    sql += " GROUP BY venue, year ORDER BY year DESC, venue"
    return [VenueCount(v, y, n) for v, y, n in await db.fetch_all(sql)]


#: One string as `json.dumps(value, ensure_ascii=False)` writes it (the
#: same function, in C).
_quote = json.encoder.encode_basestring


def _row(record: PaperRecord) -> tuple[Any, ...]:
    return (
        record.key,
        record.title,
        record.venue,
        record.year,
        record.area,
        "[" + ", ".join(map(_entry_json, record.entries)) + "]",
        "[" + ", ".join(map(_quote, record.summaries)) + "]",
    )


def _entry_json(entry: Entry) -> str:
    """`json.dumps` (with `ensure_ascii=False`) of the entry as a dict of
    these keys, written out: the same text (the key order, the encoder's
    separators, its string escaping) without building the dict."""
    return (
        f'{{"title": {_quote(entry.title)}, "venue": {_quote(entry.venue)},'
        f' "year": {int.__repr__(entry.year)}, "area": {_quote(entry.area)},'
        f' "summaries": [{", ".join(map(_quote, entry.summaries))}],'
        f' "file": {_quote(entry.source.file)}, "line": {int.__repr__(entry.source.line)}}}'
    )


def _decode_entries(text: str) -> tuple[Entry, ...]:
    return tuple(
        Entry(
            title=e["title"],
            venue=e["venue"],
            year=int(e["year"]),
            area=e["area"],
            summaries=tuple(e["summaries"]),
            source=Source(e["file"], int(e["line"])),
        )
        for e in json.loads(text)
    )


def paper_from_row(row: Sequence[Any]) -> Paper:
    """A Paper from a row of `PAPER_COLUMNS`."""
    pid, title, venue, year, area, summaries, entries = row
    sources = tuple(f"{e['file']}:{e['line']}" for e in json.loads(entries))
    return Paper(pid, title, venue, int(year), area, tuple(json.loads(summaries)), sources)
