"""Every SQL statement about the segments of the stored search index and
topic corpus (migration 0012).

A segment is the part one load appended (small named arrays), stored in one
transaction on top of a base (the `search_index` rows of a scope): readers
in another process see a segment whole or not at all. The base's corpus
version plus the segments' (in `seq` order) say which version the stored
state covers; `search_index.save_index` (a full save: the compaction)
drops the segments of its scope with the old base.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paperbot.storage import search_index
from paperbot.storage.backend import Database


@dataclass(frozen=True, slots=True)
class StoredState:
    """What a scope holds: its base's corpus version and format, and the
    corpus version each complete segment (in order) brings it to."""

    base_version: int
    format: int
    segments: tuple[int, ...] = ()

    @property
    def version(self) -> int:
        """The corpus version the base plus its segments cover."""
        return self.segments[-1] if self.segments else self.base_version


@dataclass(frozen=True, slots=True)
class Segment:
    seq: int
    corpus_version: int
    arrays: dict[str, NDArray[Any]]


async def stored_state(db: Database, scope: str) -> StoredState | None:
    """The scope's base and segments, or None without a (consistent) base.
    Segments of another base or format (none once saves compact) are left out."""
    tag = await search_index.stored_version(db, scope)
    if tag is None:
        return None
    rows = await db.fetch_all(
        "SELECT DISTINCT seq, corpus_version FROM index_segments"
        " WHERE scope = ? AND base_version = ? AND format = ? ORDER BY seq",
        (scope, tag[0], tag[1]),
    )
    return StoredState(tag[0], tag[1], tuple(int(row[1]) for row in rows))


async def load_segments(
    db: Database, scope: str, state: StoredState, names: Collection[str] | None = None
) -> list[Segment] | None:
    """The segments of `state` in order (their `names` arrays only, when
    given); None when they changed since `state` was read."""
    # Every segment's rows come (a light reader asks for a few names): the
    # data of the others is not read.
    wanted, names_params = "1 = 1", list[str]()
    if names is not None:
        wanted = f"name IN ({', '.join('?' for _ in names)})" if names else "1 = 0"
        names_params = list(names)
    rows = await db.fetch_all(
        "SELECT seq, corpus_version, name, dtype, shape,"
        f" CASE WHEN {wanted} THEN data END FROM index_segments"
        " WHERE scope = ? AND base_version = ? AND format = ? ORDER BY seq, name",
        [*names_params, scope, state.base_version, state.format],
    )
    found: dict[int, Segment] = {}
    for seq, version, name, dtype, shape, data in rows:
        segment = found.setdefault(int(seq), Segment(int(seq), int(version), {}))
        if data is not None:
            array = np.frombuffer(bytes(data), dtype=np.dtype(str(dtype)))
            segment.arrays[str(name)] = array.reshape(json.loads(shape))
    segments = [found[seq] for seq in sorted(found)]
    if tuple(s.corpus_version for s in segments) != state.segments:
        return None
    return segments


async def load_with_segments(
    db: Database, scope: str, state: StoredState
) -> tuple[search_index.StoredIndex, list[Segment]] | None:
    """The stored base of `scope` and its segments as `state` names them;
    None when absent or changed since `state` was read."""
    stored = await search_index.load_index(db, scope)
    if stored is None or (stored.corpus_version, stored.format) != (
        state.base_version,
        state.format,
    ):
        return None
    segments = await load_segments(db, scope, state)
    return None if segments is None else (stored, segments)


async def append_segment(
    db: Database,
    scope: str,
    state: StoredState,
    arrays: Mapping[str, NDArray[Any]],
    *,
    corpus_version: int,
) -> bool:
    """Store `arrays` as the next segment on top of `state`, in one
    transaction; False (nothing written) when the stored state moved on
    since `state` was read (another process saved or appended)."""
    sql = (
        "INSERT INTO index_segments"
        " (scope, seq, base_version, corpus_version, format, name, dtype, shape, data)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    where, _ = search_index.scope_condition(scope)
    async with db.transaction() as conn:
        await conn.lock(f"search-index:{scope}")
        base = await conn.fetch_all(
            f"SELECT DISTINCT corpus_version, format FROM search_index WHERE {where}"
        )
        if [(int(r[0]), int(r[1])) for r in base] != [(state.base_version, state.format)]:
            return False
        rows = await conn.fetch_all(
            "SELECT DISTINCT seq, corpus_version FROM index_segments"
            " WHERE scope = ? AND base_version = ? AND format = ? ORDER BY seq",
            (scope, state.base_version, state.format),
        )
        if tuple(int(r[1]) for r in rows) != state.segments:
            return False
        seq = len(state.segments) + 1
        for name, array in arrays.items():
            flat = np.ascontiguousarray(array)
            shape = json.dumps(list(flat.shape))
            await conn.execute(
                sql,
                (
                    scope,
                    seq,
                    state.base_version,
                    corpus_version,
                    state.format,
                    name,
                    flat.dtype.str,
                    shape,
                    flat.data.cast("B"),
                ),
            )
    return True
