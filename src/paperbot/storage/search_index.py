"""Every SQL statement about the persisted search index.

The index is a set of named numpy arrays; each is stored as one BLOB row
tagged with the corpus version it was built from and the index format, so a
reader can tell whether it is still current without unpickling anything.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paperbot.core.models import Paper
from paperbot.storage.db import Database
from paperbot.storage.papers import list_papers


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
            np.ascontiguousarray(array).tobytes(),
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


async def papers_to_index(db: Database) -> list[Paper]:
    """Every paper, in id order, as the index builder reads them."""
    return await list_papers(db)
