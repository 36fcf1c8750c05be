"""The papers' texts in normal form, read and normalised once for a load
that builds both the search index and the topic corpus from scratch.

Both start from `core.text.normalize` of every title and summary; at
100,000 papers that is seconds of NFKC, case folding and OpenCC, so it is
worked out once and shared: split in two halves, one per worker process.
The normal forms never pass through this process: each half is written to
a private temporary file, and the two builders (worker processes too) read
the files. This process holds the stored columns alone, once. The search
index's builder stores the index itself (its own connection): its arrays
never come back to this process either.
"""

from __future__ import annotations

import asyncio
import logging
import pickle
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from numpy.typing import NDArray

from paperbot.core.models import PaperColumns
from paperbot.core.search import build_index_arrays
from paperbot.core.text import normalize_columns
from paperbot.core.topics import Vocabulary
from paperbot.services import search_store, topics_store, workers
from paperbot.services.memory import release_free_memory
from paperbot.storage import search_index
from paperbot.storage.backend import Database, open_again
from paperbot.storage.db import StorageError

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SharedTexts:
    """Every live paper's id in id order; the rest (the stored columns and
    the normal form of each title and summary) is in `files`, in order."""

    ids: list[int]
    files: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Part:
    """What one file holds: stored columns and normal forms of some papers."""

    columns: PaperColumns
    normal_titles: list[str]
    normal_summaries: list[str]


class PaperTexts:
    """Read and normalised on first `get`, then shared by every caller;
    `close` removes the files."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._lock = asyncio.Lock()
        self._value: SharedTexts | None = None
        self._folder: str | None = None
        self.seconds = 0.0
        """How long reading and normalising took."""

    async def get(self) -> SharedTexts:
        async with self._lock:
            if self._value is None:
                start = time.perf_counter()
                columns = await search_index.paper_columns(self._db)
                self._folder = tempfile.mkdtemp(prefix="paperbot-texts-")
                files = await _normalize_into(columns, Path(self._folder))
                self._value = SharedTexts(columns.ids, files)
                del columns
                release_free_memory()  # the columns: only the ids stay
                self.seconds = time.perf_counter() - start
            return self._value

    async def store_search_index(self, version: int) -> int:
        """The search index of these papers, built and stored for corpus
        version `version` in worker lane 0 (the worker opens its own
        connection: the ~130 MB of arrays at 100,000 papers never come to
        this process); its live papers."""
        shared = await self.get()
        live, problem = await workers.off_lane(
            0, len(shared.ids), store_index_from, shared.files, self._db.target, version
        )
        if problem is not None:
            # As a save from this process: the next start builds it again.
            log.warning("could not store the search index: %s", problem)
        return live

    def close(self) -> None:
        self._value = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


async def _normalize_into(columns: PaperColumns, folder: Path) -> tuple[str, ...]:
    """The columns and their normal forms into files: at scale a part per
    worker lane, at the same time."""
    size = len(columns.ids)
    lanes = workers.LANES if size >= workers.WORKER_THRESHOLD else 1
    step = max(1, -(-size // lanes))
    files = tuple(str(folder / f"part-{lane}") for lane in range(lanes))
    parts = [_slice(columns, lane * step, (lane + 1) * step) for lane in range(lanes)]
    await asyncio.gather(
        *(
            workers.off_lane(lane, size, normalize_to_file, part, files[lane])
            for lane, part in enumerate(parts)
        )
    )
    return files


def _slice(columns: PaperColumns, start: int, end: int) -> PaperColumns:
    return PaperColumns(
        ids=columns.ids[start:end],
        titles=columns.titles[start:end],
        venues=columns.venues[start:end],
        years=columns.years[start:end],
        summaries=columns.summaries[start:end],
    )


def normalize_to_file(columns: PaperColumns, path: str) -> None:
    """In a worker: some papers' columns and normal forms, written to `path`."""
    titles, summaries = normalize_columns(list(columns.titles), columns.summaries)
    columns.summaries = []  # normalised in place: the raw ones are not needed
    with Path(path).open("xb") as out:
        pickle.dump(_Part(columns, titles, summaries), out, protocol=pickle.HIGHEST_PROTOCOL)


def read_texts(files: tuple[str, ...]) -> _Part:
    """Every paper's columns (no raw summaries) and normal forms that
    `normalize_to_file` wrote, in order."""
    whole = _Part(PaperColumns(), [], [])
    for path in files:
        with Path(path).open("rb") as source:
            # Written by this load's own workers into its private folder.
            part: _Part = pickle.load(source)
        for name in ("ids", "titles", "venues", "years"):
            getattr(whole.columns, name).extend(getattr(part.columns, name))
        whole.normal_titles.extend(part.normal_titles)
        whole.normal_summaries.extend(part.normal_summaries)
    return whole


def store_index_from(files: tuple[str, ...], target: str, version: int) -> tuple[int, str | None]:
    """In a worker: the search index of the shared texts built (straight
    into its stored arrays, `core.search.build_index_arrays`) and stored as
    corpus version `version` in the database at `target`, through a
    connection of its own. (live papers, why storing failed or None)."""
    part = read_texts(files)
    columns = part.columns
    arrays = build_index_arrays(
        ids=columns.ids,
        titles=columns.titles,
        venues=columns.venues,
        years=columns.years,
        summaries=part.normal_summaries,
        normal_titles=part.normal_titles,
        between=release_free_memory,  # a field's temporaries, before the next
    )
    del part, columns
    release_free_memory()  # all that is left is the arrays to store
    live = len(arrays["ids"])
    return live, asyncio.run(_store_arrays(target, arrays, version))


async def _store_arrays(target: str, arrays: dict[str, NDArray[Any]], version: int) -> str | None:
    """Save `arrays` (each let go once written), or why that failed."""
    try:
        db = await open_again(target)
        try:
            drained = ((name, arrays.pop(name)) for name in list(arrays))
            await search_store.save(db, drained, version)
        finally:
            await db.close()
    except StorageError as exc:
        return str(exc)
    return None


def topics_store_from(
    files: tuple[str, ...], vocabulary: Vocabulary, target: str, mark: tuple[int, int]
) -> tuple[str, str | None]:
    """In a worker: the topic corpus and matches of the shared texts, built
    and stored there (`topics_store.build_and_store`), each normal form let
    go as soon as its matching form is made: the corpus is then built and
    matched without the ~40 MB of normal forms beside it."""
    rows = _consumed(read_texts(files))
    return topics_store.build_and_store(rows, True, vocabulary, target, mark)


def _consumed(part: _Part) -> Iterator[tuple[int, str, str]]:
    """(id, normal title, normal summary) of each paper, each text dropped
    from `part` once yielded."""
    part.columns.titles.clear()  # the raw titles and venues: the corpus needs neither
    part.columns.venues.clear()
    ids, titles, summaries = part.columns.ids, part.normal_titles, part.normal_summaries
    for i, paper_id in enumerate(ids):
        yield paper_id, titles[i], summaries[i]
        titles[i] = summaries[i] = ""
    titles.clear()
    summaries.clear()
