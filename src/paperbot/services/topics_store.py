"""The stored topic corpus and the vocabulary topics' matches as a base plus
append-only segments (see `storage.index_segments`).

A segment holds what one load appended: the new papers' corpus, each
topic's matches among them (decided against the frozen profiles, as
`core.topics.extend_matches` decides them) and the ids it marks dead.
Loading replays the segments on the base, which equals the corpus and
matches appended in-process. `paperbot load` stores an append as a segment
reading only the stored ids, watermarks and matches, not the corpus; a
full save (`search_index.save_index`) writes one base and drops them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paperbot.core.arrays import sorted_union
from paperbot.core.topics import (
    FROZEN_PROFILE,
    TOPICS_FORMAT,
    TopicCorpus,
    TopicMatches,
    Vocabulary,
    apply_part,
    build_corpus,
    corpus_arrays,
    corpus_from_arrays,
    match_topic,
    matches_from_arrays,
    part_matches,
    segment_matches,
    stored_mark,
    vocabulary_fingerprint,
    with_part,
)
from paperbot.services import search_store
from paperbot.services.memory import hand_back_large_blocks, release_free_memory
from paperbot.services.topic_split import match_all
from paperbot.services.workers import with_own_connection
from paperbot.storage import index_segments, papers, search_index
from paperbot.storage.backend import Database
from paperbot.storage.db import StorageError
from paperbot.storage.index_segments import StoredState

log = logging.getLogger(__name__)

SCOPE = "topics"
_MATCH_ARRAYS = {
    "vocabulary",
    "match_keys",
    *(f"match_{part}{name}" for part in ("", "near_") for name in ("indptr", "ids", "scores")),
    *(f"profile_{name}" for name in ("indptr", "terms", "weights", "counts")),
}
_LIGHT = {"mark", "ids", "dead", "removed", *_MATCH_ARRAYS}
"""What an append reads: no texts, no postings."""

Mark = tuple[int, int] | None
Decoded = tuple[TopicCorpus, dict[str, TopicMatches], Mark]


async def current_state(db: Database) -> StoredState | None:
    """The stored corpus's base and segments, when of the current format."""
    state = await index_segments.stored_state(db, SCOPE)
    return state if state is not None and state.format == TOPICS_FORMAT else None


def build_and_store(
    rows: Iterable[tuple[int, str, str]],
    normal: bool,
    vocabulary: Vocabulary,
    target: str,
    mark: tuple[int, int],
    free_core: str | None = None,
) -> tuple[str, str | None]:
    """In a worker process: the corpus of these papers built (`normal` as
    for `build_corpus`) and every vocabulary topic matched (on a second
    core too once the file `free_core` exists: `topic_split`), stored as the
    base (watermark `mark`: the corpus version, the max paper id) in the
    database at `target` (`Database.target`) through a connection of its
    own, an array at a time, so they never cross back to the loading
    process. ("built", or "skipped" when another load changed the corpus
    meanwhile: the next start builds; why storing failed, or None)."""
    hand_back_large_blocks()
    corpus = build_corpus(rows, normal)
    # The build's and the matching's freed heap handed back (~70 MB at
    # 100,000 papers): this process lives on beside the search index's.
    release_free_memory()
    matches = match_all(vocabulary, corpus, vocabulary.term_words(), free_core)
    release_free_memory()
    arrays = corpus_arrays(corpus, matches, vocabulary_fingerprint(vocabulary), mark)
    del corpus, matches  # the arrays' generator holds them until it is done
    outcome, problem = with_own_connection(target, lambda db: _store_base(db, arrays, mark[0]))
    return outcome or "built", problem


async def _store_base(
    db: Database, arrays: Iterator[tuple[str, NDArray[Any]]], version: int
) -> str:
    if await papers.corpus_version(db) != version:
        return "skipped"
    await search_index.save_index(
        db, arrays, corpus_version=version, format=TOPICS_FORMAT, scope=SCOPE
    )
    return "built"


async def load(db: Database, state: StoredState, fingerprint: str) -> Decoded | None:
    """(corpus, matches by topic key, watermark) of the base with its
    segments replayed; None when absent or changed meanwhile. Raises
    KeyError/ValueError/UnicodeDecodeError when unreadable."""
    found = await index_segments.load_with_segments(db, SCOPE, state)
    if found is None:
        return None
    stored, segments = found
    return await asyncio.to_thread(
        _replay, stored.arrays, [s.arrays for s in segments], fingerprint
    )


def _replay(
    base: Mapping[str, NDArray[Any]], segments: Sequence[Mapping[str, NDArray[Any]]], fp: str
) -> Decoded:
    corpus = corpus_from_arrays(base)
    found = matches_from_arrays(base, fp)
    mark = stored_mark(base)
    for arrays in segments:
        part = corpus_from_arrays(arrays)
        removed = arrays["removed"].astype(np.int64).tolist()
        corpus = apply_part(corpus, removed, part)
        found = _with_segment(found, arrays, fp, removed, part.ids)
        mark = stored_mark(arrays)
    return corpus, found, mark


def _with_segment(
    found: Mapping[str, TopicMatches],
    arrays: Mapping[str, NDArray[Any]],
    fp: str,
    removed: Sequence[int],
    part_ids: NDArray[np.int64],
) -> dict[str, TopicMatches]:
    new = segment_matches(arrays, fp, found)
    return {
        key: with_part(m, new[key], removed, part_ids) for key, m in found.items() if key in new
    }


async def _light(
    db: Database, state: StoredState, fp: str
) -> tuple[int, int, dict[str, TopicMatches], Mark] | None:
    """(entries, dead entries, matches, watermark) of the stored corpus,
    from its ids, dead marks, matches and watermarks alone."""
    stored = await search_index.load_index(db, SCOPE, _LIGHT)
    segments = await index_segments.load_segments(db, SCOPE, state, _LIGHT)
    if stored is None or segments is None:
        return None
    ids = stored.arrays["ids"].astype(np.int64)
    dead = stored.arrays["dead"].astype(np.int32)
    found = matches_from_arrays(stored.arrays, fp)
    mark = stored_mark(stored.arrays)
    for segment in segments:
        arrays = segment.arrays
        removed = arrays["removed"].astype(np.int64).tolist()
        part_ids = arrays["ids"].astype(np.int64)
        gone = sorted_union(np.asarray(removed, dtype=np.int64), part_ids)
        hit = np.flatnonzero(np.isin(ids, gone)).astype(np.int32)
        dead = sorted_union(dead, hit).astype(np.int32)
        ids = np.concatenate([ids, part_ids])
        found = _with_segment(found, arrays, fp, removed, part_ids)
        mark = stored_mark(arrays)
    return len(ids), len(dead), found, mark


async def append(db: Database, version: int, vocabulary: Vocabulary) -> str | None:
    """For `paperbot load`: bring the stored corpus and matches to `version`
    by storing the papers added or changed since (and every vocabulary
    topic's matches among them) as one segment, without reading the stored
    corpus. "appended", or None when only the full way will do (no stored
    matches for a topic, a stale profile, too many dead entries or
    segments, or another process stored meanwhile)."""
    state = await current_state(db)
    if (
        state is None
        or state.version >= version
        or len(state.segments) >= search_store.SEGMENT_LIMIT
    ):
        return None
    fp = vocabulary_fingerprint(vocabulary)
    light = await _light(db, state, fp)
    if light is None or light[3] is None or light[3][0] != state.version:
        return None
    size, dead, found, (covered, max_id) = (*light[:3], light[3])
    if any(topic.key not in found for topic in vocabulary.topics):
        return None
    changed = await search_index.changed_since(db, covered, max_id)
    if dead + len(changed) > search_store.COMPACT_SHARE * max(1, size - dead):
        return None
    columns = await search_index.paper_columns(db, after_id=max_id, changed_after=covered)
    rows = list(zip(columns.ids, columns.titles, columns.summaries, strict=True))
    del columns
    mark = (version, max([max_id, *(row[0] for row in rows)]))
    arrays = await asyncio.to_thread(
        _segment, rows, changed, {t.key: found[t.key] for t in vocabulary.topics}, vocabulary, mark
    )
    if arrays is None:
        return None
    stored = await index_segments.append_segment(db, SCOPE, state, arrays, corpus_version=version)
    return "appended" if stored else None


def _segment(
    rows: Sequence[tuple[int, str, str]],
    changed: Sequence[int],
    found: Mapping[str, TopicMatches],
    vocabulary: Vocabulary,
    mark: tuple[int, int],
) -> dict[str, NDArray[Any]] | None:
    """The segment's arrays: the part's corpus and matches (None when a
    profile is stale)."""
    part = build_corpus(rows)
    protected = vocabulary.term_words()
    new: dict[str, TopicMatches] = {}
    for key, matches in found.items():
        topic = vocabulary.get(key)
        decided = (
            None
            if topic is None
            else part_matches(matches, topic, part, protected, vocabulary, removed=changed)
        )
        if decided is None:
            return None
        new[key] = decided
    return segment_arrays(part, changed, new, found, vocabulary, mark)


def segment_arrays(
    part: TopicCorpus,
    changed: Sequence[int],
    new: Mapping[str, TopicMatches],
    found: Mapping[str, TopicMatches],
    vocabulary: Vocabulary,
    mark: tuple[int, int],
) -> dict[str, NDArray[Any]]:
    """One append as a segment: the appended `part`, the ids it marks dead
    (`changed`; the part's own ids die too), each topic's `new` matches
    among the part (extending its `found` ones)."""
    arrays = dict(corpus_arrays(part, new, vocabulary_fingerprint(vocabulary), mark))
    if all(new[key].profile.weights == found[key].profile.weights for key in new):
        # Frozen: only their counts change (`segment_matches` fills them in).
        for name in FROZEN_PROFILE:
            del arrays[name]
    arrays["removed"] = np.asarray(changed, dtype=np.int64)
    return arrays


async def save_appended(
    db: Database, covered: int, version: int, arrays: dict[str, NDArray[Any]]
) -> bool:
    """Store an append made in this process (from the stored state of
    version `covered`) as a segment, or nothing when another process stored
    `version` already; False when the stored state is another (the caller
    saves whole)."""
    state = await current_state(db)
    if state is not None and state.version == version:
        return True
    if (
        state is None
        or state.version != covered
        or len(state.segments) >= search_store.SEGMENT_LIMIT
    ):
        return False
    return await index_segments.append_segment(db, SCOPE, state, arrays, corpus_version=version)


@dataclass(frozen=True, slots=True)
class Pending:
    """An append made in a process, until it is stored as a segment: the
    version it went from and to, the ids marked dead, the appended part and
    each topic's matches among it (and before it)."""

    covered: int
    version: int
    changed: list[int]
    part: TopicCorpus
    parts: dict[str, TopicMatches]
    old: dict[str, TopicMatches]


def extend_all(
    old: dict[str, TopicMatches],
    vocabulary: Vocabulary,
    corpus: TopicCorpus,
    part: TopicCorpus,
    changed: list[int],
    versions: tuple[int, int],
) -> tuple[dict[str, TopicMatches], Pending | None]:
    """The `old` matches (by topic key) over `corpus`, which is their
    corpus with `part` appended and `changed` dead, as `extend_matches`
    makes them; and the append to store as a segment (None unless every
    vocabulary topic was extended by its frozen profile)."""
    protected = vocabulary.term_words()
    merged: dict[str, TopicMatches] = {}
    parts: dict[str, TopicMatches] | None = {}
    for key, found in old.items():
        topic = vocabulary.get(key)
        if topic is None:
            continue
        decided = part_matches(found, topic, part, protected, vocabulary, removed=changed)
        if decided is None:
            parts = None
            merged[key] = match_topic(topic, corpus, protected, vocabulary)
        else:
            merged[key] = with_part(found, decided, changed, part.ids)
            if parts is not None:
                parts[key] = decided
    if parts is None or any(topic.key not in parts for topic in vocabulary.topics):
        return merged, None
    return merged, Pending(*versions, changed, part, parts, old)


async def store_pending(
    db: Database,
    pending: Pending | None,
    version: int,
    mark: tuple[int, int] | None,
    vocabulary: Vocabulary,
) -> bool:
    """Store the `pending` append as a segment when it made the corpus of
    `version` (watermark `mark`) from the stored state; False when the
    caller must save whole."""
    if pending is None or pending.version != version or mark is None:
        return False
    arrays = segment_arrays(
        pending.part, pending.changed, pending.parts, pending.old, vocabulary, mark
    )
    try:
        return await save_appended(db, pending.covered, pending.version, arrays)
    except StorageError as exc:
        log.warning("could not store the topic corpus segment: %s", exc)
        return False
