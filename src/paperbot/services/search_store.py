"""The stored search index as a base plus append-only segments (see
`storage.index_segments`): loading replays the segments on the base, and a
load that appended papers stores only its segment instead of rewriting the
whole index; a full save (after a build, or past `SEGMENT_LIMIT`) writes
one base and drops the segments.

A process that only stores an append (`paperbot load`) never reads the
postings or texts: the segment holds the appended papers and the ids
marked dead, and what it needs to decide is in the watermarks and the ids.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paperbot.core import search as core
from paperbot.storage import index_segments
from paperbot.storage import search_index as index_store
from paperbot.storage.backend import Database
from paperbot.storage.index_segments import StoredState

__all__ = [
    "COMPACT_SHARE",
    "SCOPE",
    "SEGMENT_LIMIT",
    "WATERMARK",
    "CommonChanged",
    "StoredState",
    "append",
    "current_state",
    "latest_mark",
    "load",
    "save",
    "save_appended",
    "usable",
    "watermark",
    "worth_catching_up",
]

log = logging.getLogger(__name__)

SCOPE = "index"
WATERMARK = "watermark"
"""The array saying which corpus version an index covers (with its max paper
id, live papers and dead entries): in the base and in every segment."""
SEGMENT_LIMIT = 8
"""Segments an append stacks at most; the next one rewrites the whole index
(the compaction of segments; dead entries are compacted by a full build)."""
COMPACT_SHARE = 0.1
"""Dead entries (papers removed or changed since indexed) are compacted away
by a full build once they would pass this share of the live papers."""


def watermark(index: core.SearchIndex, version: int) -> NDArray[np.int64]:
    """What a later process needs to bring `index` (current at `version`) up
    to date: papers changed after `version` are found by their
    `changed_version`, new ones above the max id."""
    return _mark(index.ids, index.dead, version)


def _mark(ids: NDArray[np.int64], dead: NDArray[np.int64], version: int) -> NDArray[np.int64]:
    max_id = int(np.max(ids)) if len(ids) else 0
    return np.array([version, max_id, len(ids) - len(dead), len(dead)], dtype=np.int64)


async def save(db: Database, arrays: Iterable[tuple[str, NDArray[Any]]], version: int) -> None:
    """Store a whole index current at `version` as the new base (its
    segments dropped) with its watermark: `arrays` as `core.iter_arrays`
    gives them (each written before the next is asked for)."""
    seen: dict[str, NDArray[Any]] = {}

    def marked() -> Iterator[tuple[str, NDArray[Any]]]:
        counts: list[tuple[str, NDArray[Any]]] = []
        for name, array in arrays:
            if name in ("ids", "dead"):
                seen[name] = array
            if name in core.COUNT_ARRAYS:  # counted while the texts are at hand
                counts.append((core.COUNT_ARRAYS[name], core.packed_char_counts(array)))
            yield name, array
        yield from counts
        yield WATERMARK, _mark(seen["ids"], seen["dead"], version)

    await index_store.save_index(db, marked(), corpus_version=version, format=core.INDEX_FORMAT)


class CommonChanged(Exception):
    """The papers an append would store change the characters a full build
    treats as common: only a full build answers as it should then."""


async def current_state(db: Database) -> StoredState | None:
    """The stored index's base and segments, when of the current format."""
    state = await index_segments.stored_state(db, SCOPE)
    return state if state is not None and state.format == core.INDEX_FORMAT else None


async def load(db: Database, state: StoredState) -> core.SearchIndex | None:
    """The stored base with its segments replayed; None when absent,
    changed meanwhile, unreadable, or when a segment cannot be replayed
    (a common character changed: only a full build answers right then)."""
    found = await index_segments.load_with_segments(db, SCOPE, state)
    if found is None:
        return None
    stored, segments = found
    try:
        return await asyncio.to_thread(_replay, stored.arrays, [s.arrays for s in segments])
    except (KeyError, ValueError, UnicodeDecodeError) as exc:
        log.warning("stored search index unreadable (%s); rebuilding", exc)
        return None


def _replay(
    base: Mapping[str, NDArray[Any]], segments: Sequence[Mapping[str, NDArray[Any]]]
) -> core.SearchIndex | None:
    index: core.SearchIndex | None = core.from_arrays(base)
    parts = [base]  # each part's stored character counts give the common ones
    for arrays in segments:
        if index is None:
            break
        parts.append(arrays)
        columns = core.segment_columns(arrays)
        common = core.stored_common(parts, index.size + len(columns["ids"]))
        index = core.update_papers(index, **columns, common=common)
    return index


async def usable(db: Database) -> bool:
    """Whether the stored index is worth reading and catching up."""
    state = await current_state(db)
    return state is not None and await worth_catching_up(db, state)


async def worth_catching_up(db: Database, state: StoredState) -> bool:
    """Whether the stored index carries the watermark `save` writes (an
    index stored before papers recorded when they changed has none) and
    few enough papers changed since."""
    mark = await latest_mark(db, state)
    if mark is None:
        return False
    covered, max_id, live, dead = mark
    changed = await index_store.changed_since(db, covered, max_id)
    return dead + len(changed) <= COMPACT_SHARE * max(1, live)


async def latest_mark(db: Database, state: StoredState) -> tuple[int, int, int, int] | None:
    """(covered version, max id, live, dead) after the base and its
    segments, or None when the watermark is missing or disagrees."""
    positions = await _positions(db, state, ids=False)
    return None if positions is None else positions[2]


async def _positions(
    db: Database, state: StoredState, *, ids: bool = True
) -> tuple[NDArray[np.int64], NDArray[np.int64], tuple[int, int, int, int]] | None:
    """(every entry's paper id, the dead positions, the latest watermark)
    of the stored index, read from its ids and watermarks alone."""
    names = {WATERMARK, "ids", "dead", "removed"} if ids else {WATERMARK}
    stored = await index_store.load_index(db, SCOPE, names)
    segments = await index_segments.load_segments(db, SCOPE, state, names)
    if stored is None or segments is None or WATERMARK not in stored.arrays:
        return None
    empty = np.zeros(0, dtype=np.int64)
    all_ids = stored.arrays.get("ids", empty).astype(np.int64)
    dead = stored.arrays.get("dead", empty).astype(np.int64)
    mark = stored.arrays[WATERMARK]
    for segment in segments:
        if WATERMARK not in segment.arrays:
            return None
        mark = segment.arrays[WATERMARK]
        if ids:
            added = segment.arrays["ids"].astype(np.int64)
            gone = [*segment.arrays["removed"].tolist(), *added.tolist()]
            dead = core.dead_after(all_ids, dead, gone)
            all_ids = np.concatenate([all_ids, added])
    values = tuple(int(v) for v in mark.tolist())
    if len(values) != 4 or values[0] != state.version:
        return None
    return all_ids, dead, (values[0], values[1], values[2], values[3])


async def _char_counts(db: Database, state: StoredState) -> list[dict[str, NDArray[Any]]] | None:
    """The character counts of the base and of each segment, in order; None
    when the state moved on or a part has none."""
    names = set(core.COUNT_ARRAYS.values())
    stored = await index_store.load_index(db, SCOPE, names)
    segments = await index_segments.load_segments(db, SCOPE, state, names)
    if stored is None or segments is None:
        return None
    parts = [stored.arrays, *(s.arrays for s in segments)]
    return parts if all(names <= part.keys() for part in parts) else None


async def append(db: Database, version: int) -> tuple[int, str] | None:
    """For `paperbot load`: bring the stored index to `version` by storing
    the papers added or changed since as one segment, without reading the
    index itself. (live papers, how it became current), or None when only
    the full way (load, build or compact, save whole) will do; raises
    `CommonChanged` when that way is a full build (the stored index cannot
    be caught up)."""
    state = await current_state(db)
    if state is None or state.version > version or len(state.segments) >= SEGMENT_LIMIT:
        return None
    mark = await latest_mark(db, state)
    if mark is None:
        return None
    covered, max_id, live, dead = mark
    if covered == version:
        return live, "stored"
    changed = await index_store.changed_since(db, covered, max_id)
    if dead + len(changed) > COMPACT_SHARE * max(1, live):
        return None
    columns = await index_store.paper_columns(db, after_id=max_id, changed_after=covered)
    arrays = core.segment_arrays(changed, columns)
    del columns
    stacked = await _stack(db, state, arrays, version)
    return None if stacked is None else (stacked, "appended")


async def save_appended(
    db: Database, version: int, covered: int, segment: dict[str, NDArray[Any]]
) -> bool:
    """Store an index appended in this process (the stored one of version
    `covered` plus `segment`, from `core.segment_arrays`) as that segment
    alone, or nothing when another process stored `version` already;
    False when the stored state is not the one it extends (the caller
    saves it whole)."""
    state = await current_state(db)
    if state is not None and state.version == version:
        return True  # another process stored this very version already
    if state is None or state.version != covered or len(state.segments) >= SEGMENT_LIMIT:
        return False
    try:
        return await _stack(db, state, segment, version) is not None
    except CommonChanged:  # not after an in-process append, which declines those
        return False


async def _stack(
    db: Database, state: StoredState, segment: dict[str, NDArray[Any]], version: int
) -> int | None:
    """Append `segment` on `state` with its watermark (worked out from the
    stored ids, as `update_papers` marks them dead) and its character
    counts; its live papers, or None when the stored state moved on or has
    no watermark. Raises `CommonChanged` when its papers would change the
    common characters (its segment could not be replayed)."""
    positions = await _positions(db, state)
    counts = await _char_counts(db, state)
    if positions is None or counts is None:
        return None
    all_ids, dead, (_, max_id, _, _) = positions
    added = segment["ids"].astype(np.int64)
    segment.update(await asyncio.to_thread(core.segment_char_counts, segment, len(all_ids)))
    if not core.keeps_common([*counts, segment], len(all_ids), len(added)):
        raise CommonChanged("the new papers change which characters are common")
    dead = core.dead_after(all_ids, dead, [*segment["removed"].tolist(), *added.tolist()])
    size = len(all_ids) + len(added)
    new_max = max(max_id, int(np.max(added)) if len(added) else max_id)
    live = size - len(dead)
    segment[WATERMARK] = np.array([version, new_max, live, len(dead)], dtype=np.int64)
    if not await index_segments.append_segment(db, SCOPE, state, segment, corpus_version=version):
        return None
    return live
