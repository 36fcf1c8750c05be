"""Every SQL statement about the persisted search index.

The index is a set of named numpy arrays; each is stored as one BLOB row
tagged with the corpus version it was built from and the index format, so a
reader can tell whether it is still current without unpickling anything.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paperbot.storage.db import Database


@dataclass(frozen=True, slots=True)
class StoredIndex:
    corpus_version: int
    format: int
    arrays: dict[str, NDArray[Any]]


async def save_index(
    db: Database, arrays: Mapping[str, NDArray[Any]], *, corpus_version: int, format: int
) -> None:
    """Replace the stored index with these arrays, in one transaction."""
    rows = [
        (
            name,
            corpus_version,
            format,
            array.dtype.str,
            json.dumps(list(array.shape)),
            # A view, not a copy: the arrays can be tens of megabytes.
            np.ascontiguousarray(array).data.cast("B"),
        )
        for name, array in arrays.items()
    ]
    async with db.transaction() as conn:
        await conn.execute("DELETE FROM search_index")
        await conn.executemany(
            "INSERT INTO search_index (name, corpus_version, format, dtype, shape, data)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )


async def stored_version(db: Database) -> tuple[int, int] | None:
    """(corpus_version, format) of the stored index, or None when there is
    none or its rows disagree (a half-written index is treated as absent)."""
    async with db.conn.execute("SELECT DISTINCT corpus_version, format FROM search_index") as cur:
        rows = list(await cur.fetchall())
    if len(rows) != 1:
        return None
    return int(rows[0][0]), int(rows[0][1])


async def load_index(db: Database) -> StoredIndex | None:
    """The stored index, or None when there is none (or it is inconsistent).

    Arrays are read-only views over the fetched bytes: no copy is made.
    """
    version = await stored_version(db)
    if version is None:
        return None
    async with db.conn.execute("SELECT name, dtype, shape, data FROM search_index") as cur:
        rows = await cur.fetchall()
    arrays: dict[str, NDArray[Any]] = {}
    for name, dtype, shape, data in rows:
        arrays[str(name)] = np.frombuffer(data, dtype=np.dtype(dtype)).reshape(json.loads(shape))
    return StoredIndex(corpus_version=version[0], format=version[1], arrays=arrays)


async def clear_index(db: Database) -> None:
    async with db.transaction() as conn:
        await conn.execute("DELETE FROM search_index")


@dataclass(slots=True)
class PaperColumns:
    """What the index builder reads, column-wise (no Paper objects)."""

    ids: list[int] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    venues: list[str] = field(default_factory=list)
    years: list[int] = field(default_factory=list)
    summaries: list[str] = field(default_factory=list)


async def paper_columns(db: Database, batch: int = 5000) -> PaperColumns:
    """Every paper in id order, summaries joined as `Paper.summary` joins them."""
    columns = PaperColumns()
    async with db.conn.execute(
        "SELECT id, title, venue, year, summaries FROM papers ORDER BY id"
    ) as cur:
        while rows := await cur.fetchmany(batch):
            for pid, title, venue, year, summaries in rows:
                columns.ids.append(int(pid))
                columns.titles.append(str(title))
                columns.venues.append(str(venue))
                columns.years.append(int(year))
                columns.summaries.append("\n\n".join(json.loads(summaries)))
    return columns
