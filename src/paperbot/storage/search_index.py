"""Every SQL statement about the persisted search index.

The index is a set of named numpy arrays; each is stored as one BLOB row
tagged with the corpus version it was built from and the index format, so a
reader can tell whether it is still current without unpickling anything.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paperbot.core.models import PaperColumns
from paperbot.storage.backend import Database, Transaction


@dataclass(frozen=True, slots=True)
class StoredIndex:
    corpus_version: int
    format: int
    arrays: dict[str, NDArray[Any]]


# Large arrays are stored as several rows (`name`, `name#1`, ...) of at most
# this many bytes: a save or load then never holds a second full copy of a
# tens-of-megabytes array (SQLite copies every bound blob).
PART_BYTES = 8 << 20
_PART_SEP = "#"

TOPICS = "topics:"
"""Rows whose names start with this hold the topic corpus and the vocabulary
topics' matches (services/topics.py), in the same table and layout, saved and
read on their own: `scope="topics"`. Every other row is the search index."""


def scope_condition(scope: str) -> tuple[str, str]:
    """(the condition selecting a scope's rows, its name prefix)."""
    if scope == "index":
        return f"name NOT LIKE '{TOPICS}%'", ""
    if scope == "topics":
        return f"name LIKE '{TOPICS}%'", TOPICS
    raise ValueError(f"not a stored array scope: {scope}")


def _parts(array: NDArray[Any]) -> list[NDArray[Any]]:
    flat = np.ascontiguousarray(array)
    if flat.ndim != 1 or flat.nbytes <= PART_BYTES:
        return [flat]
    step = max(1, PART_BYTES // max(1, flat.itemsize))
    return [flat[i : i + step] for i in range(0, len(flat), step)]


async def save_index(
    db: Database,
    arrays: Mapping[str, NDArray[Any]] | Iterable[tuple[str, NDArray[Any]]],
    *,
    corpus_version: int,
    format: int,
    scope: str = "index",
) -> None:
    """Replace the stored index with these arrays, in one transaction.

    `arrays` may be a lazy iterable of (name, array): each array is written
    (in parts) before the next one is asked for.
    """
    items = arrays.items() if isinstance(arrays, Mapping) else arrays
    where, prefix = scope_condition(scope)
    sql = (
        "INSERT INTO search_index (name, corpus_version, format, dtype, shape, data)"
        " VALUES (?, ?, ?, ?, ?, ?)"
    )
    async with db.transaction() as conn:
        await conn.lock(f"search-index:{scope}")
        await conn.execute(f"DELETE FROM search_index WHERE {where}")
        # A full save is the compaction: the segments of the old base go too.
        await conn.execute("DELETE FROM index_segments WHERE scope = ?", (scope,))
        for name, array in items:
            if _PART_SEP in name:
                raise ValueError(f"array name must not contain {_PART_SEP!r}: {name}")
            # In a function of its own: no loop variable keeps the array's
            # last part (the array itself, when small) while a lazy
            # `arrays` builds the next one.
            await _insert_parts(conn, sql, prefix + name, array, (corpus_version, format))
            del array


async def _insert_parts(
    conn: Transaction, sql: str, row_name: str, array: NDArray[Any], stamp: tuple[int, int]
) -> None:
    """One array's rows (`_parts`), the first named `row_name`."""
    for i, part in enumerate(_parts(array)):
        name = row_name if i == 0 else f"{row_name}{_PART_SEP}{i}"
        shape = json.dumps(list(part.shape))
        # A view, not a copy: the arrays can be tens of megabytes.
        data = part.data.cast("B")
        await conn.execute(sql, (name, *stamp, part.dtype.str, shape, data))


async def stored_version(db: Database, scope: str = "index") -> tuple[int, int] | None:
    """(corpus_version, format) of the stored index, or None when there is
    none or its rows disagree (a half-written index is treated as absent)."""
    where = scope_condition(scope)[0]
    sql = f"SELECT DISTINCT corpus_version, format FROM search_index WHERE {where}"
    rows = list(await db.fetch_all(sql))
    if len(rows) != 1:
        return None
    return int(rows[0][0]), int(rows[0][1])


async def load_index(
    db: Database, scope: str = "index", names: Collection[str] | None = None
) -> StoredIndex | None:
    """The stored base index (its `names` arrays only, when given), or None
    when there is none (or it is inconsistent); its segments are read by
    `storage.index_segments`.

    Each array is allocated once and filled part by part.
    """
    where, prefix = scope_condition(scope)
    version = await stored_version(db, scope)
    if version is None:
        return None
    meta = list(await db.fetch_all(f"SELECT name, dtype, shape FROM search_index WHERE {where}"))
    layout: dict[str, list[tuple[int, str, str, list[int]]]] = {}
    for row_name, dtype, shape in meta:
        base, _, number = str(row_name).removeprefix(prefix).partition(_PART_SEP)
        if names is not None and base not in names:
            continue
        layout.setdefault(base, []).append(
            (int(number or 0), str(row_name), str(dtype), json.loads(shape))
        )
    arrays: dict[str, NDArray[Any]] = {}
    for base, parts in layout.items():
        parts.sort()
        dtype = np.dtype(parts[0][2])
        shape = parts[0][3] if len(parts) == 1 else [sum(p[3][0] for p in parts)]
        out = np.empty(shape, dtype=dtype)
        flat = out.reshape(-1)
        at = 0
        for _, row_name, part_dtype, _ in parts:
            row = await db.fetch_one("SELECT data FROM search_index WHERE name = ?", (row_name,))
            if row is None or np.dtype(part_dtype) != dtype:
                return None  # changed under us: treat as absent
            piece = np.frombuffer(row[0], dtype=dtype)
            if at + len(piece) > len(flat):
                return None
            flat[at : at + len(piece)] = piece
            at += len(piece)
            del row, piece
        if at != len(flat):
            return None
        arrays[base] = out
    return StoredIndex(corpus_version=version[0], format=version[1], arrays=arrays)


async def changed_since(db: Database, version: int, max_id: int) -> list[int]:
    """Ids up to `max_id` of the papers a load changed, retired or brought
    back after corpus version `version` (an index covering that version holds
    stale entries for them)."""
    # Sorted here: an ORDER BY makes SQLite walk the whole table in id order
    # instead of searching the (few) rows by the changed_version index.
    rows = await db.fetch_all(
        "SELECT id FROM papers WHERE changed_version > ? AND id <= ?", (version, max_id)
    )
    return sorted(int(row[0]) for row in rows)


async def clear_index(db: Database) -> None:
    async with db.transaction() as conn:
        await conn.execute("DELETE FROM search_index")
        await conn.execute("DELETE FROM index_segments")


_NEVER = 1 << 62  # a corpus version no load reaches


async def paper_columns(
    db: Database, batch: int = 5000, after_id: int = 0, changed_after: int | None = None
) -> PaperColumns:
    """Every paper with an id above `after_id` in id order (retired ones
    left out), summaries joined as `Paper.summary` joins them; with
    `changed_after`, also those a load changed after that corpus version."""
    columns = PaperColumns()
    changed = _NEVER if changed_after is None else changed_after
    # Not `fetch_all`: batches keep the raw rows of a large corpus from all
    # being held at once beside the columns.
    rows = db.stream(
        "SELECT id, title, venue, year, summaries FROM papers"
        " WHERE retired_at IS NULL AND (id > ? OR changed_version > ?) ORDER BY id",
        (after_id, changed),
        batch=batch,
    )
    async for pid, title, venue, year, summaries in rows:
        columns.ids.append(int(pid))
        columns.titles.append(str(title))
        columns.venues.append(str(venue))
        columns.years.append(int(year))
        columns.summaries.append("\n\n".join(json.loads(summaries)))
    return columns
