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

A first load of many papers (`EarlyTexts`) has them normalised from its
plan while it writes them, so the worker processes overlap the write
instead of waiting for it; once written, the stored papers are checked to
be exactly the planned ones (same keys, in id order) before the files are
used, else (or when that early job failed) the texts are read back and
normalised as usual.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import pickle
import shutil
import tempfile
import time
from array import array
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from paperbot.core.models import PaperColumns, PaperRecord
from paperbot.core.search import PackedTexts, iter_index_arrays
from paperbot.core.text import fold_word, normalize_columns
from paperbot.core.topics import Vocabulary
from paperbot.services import search_store, topics_store, workers
from paperbot.services.memory import release_free_memory
from paperbot.storage import papers, search_index
from paperbot.storage.backend import Database

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SharedTexts:
    """Every live paper's id in id order; the rest (the stored columns and
    the normal form of each title and summary) is in `files`, in order."""

    ids: Sequence[int]
    files: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Part:
    """What one file holds: stored columns and normal forms of some papers."""

    columns: PaperColumns
    normal_titles: list[str]
    normal_summaries: list[str]


EARLY_NICENESS = 10
"""How far below the usual priority `EarlyTexts` are normalised."""


@dataclass(frozen=True, slots=True)
class EarlyTexts:
    """A load's new papers normalised (`task`) into files in `folder` while
    the load writes them; `keys`: theirs, in the order written."""

    keys: list[str]
    folder: str
    task: asyncio.Task[tuple[str, ...]]

    def discard(self) -> None:
        """Remove the files now (a worker still to read its columns fails at
        once) and again when the task ends: a worker past that point may
        still write its part (cancelling the task would not stop it)."""
        shutil.rmtree(self.folder, ignore_errors=True)
        self.task.add_done_callback(self._remove)

    def _remove(self, task: asyncio.Task[tuple[str, ...]]) -> None:
        if not task.cancelled():
            task.exception()  # retrieved: a discarded job's failure concerns no one
        shutil.rmtree(self.folder, ignore_errors=True)


def start_early(records: Sequence[PaperRecord]) -> EarlyTexts | None:
    """Start normalising the texts of the papers a load is about to insert
    (in this order, into an empty corpus), at scale only: below
    `WORKER_THRESHOLD` the usual way is quicker than the worker processes."""
    if len(records) < workers.WORKER_THRESHOLD:
        return None
    # The columns `search_index.paper_columns` will read back, ids aside.
    columns = PaperColumns(
        titles=[r.title for r in records],
        venues=[r.venue for r in records],
        years=[r.year for r in records],
        summaries=["\n\n".join(r.summaries) for r in records],
    )
    folder = tempfile.mkdtemp(prefix="paperbot-texts-")
    # At a lower priority: the load writing the papers meanwhile comes first.
    task = asyncio.create_task(_normalize_into(columns, Path(folder), nice=EARLY_NICENESS))
    return EarlyTexts([r.key for r in records], folder, task)


class PaperTexts:
    """Read and normalised on first `get` (or taken from `early` when the
    stored papers are the ones it normalised), then shared by every caller;
    `close` removes the files."""

    def __init__(self, db: Database, early: EarlyTexts | None = None) -> None:
        self._db = db
        self._lock = asyncio.Lock()
        self._value: SharedTexts | None = None
        self._folder: str | None = None
        self._early = early
        self.seconds = 0.0
        """How long reading and normalising took (for `early`: waiting for it)."""

    async def get(self) -> SharedTexts:
        async with self._lock:
            if self._value is None:
                start = time.perf_counter()
                self._value = await self._adopt_early() or await self._read()
                release_free_memory()  # the columns or the load: only the ids stay
                self.seconds = time.perf_counter() - start
            return self._value

    async def _adopt_early(self) -> SharedTexts | None:
        """The early texts, when the live papers are exactly the ones they
        hold (same keys in id order), with a first file of their ids."""
        early, self._early = self._early, None
        if early is None:
            return None
        self._folder = early.folder
        files = await _early_files(early)
        listed, keys = await papers.live_keys(self._db)
        same = keys == early.keys
        # Compact: a list's 100,000 ints, made while the load's objects
        # were still alive, would pin their freed heap in this process.
        ids = array("q", listed)
        del listed, keys, early.keys[:]
        if files is None or not same:
            early.discard()
            self._folder = None
            return None
        ids_file = str(Path(early.folder) / "ids")
        # `read_texts` joins parts column by column: this one holds the ids.
        _write_parts([_Part(PaperColumns(ids=ids.tolist()), [], [])], [ids_file])
        return SharedTexts(ids, (ids_file, *files))

    async def _read(self) -> SharedTexts:
        columns = await search_index.paper_columns(self._db)
        self._folder = tempfile.mkdtemp(prefix="paperbot-texts-")
        ids = array("q", columns.ids)  # compact, as `_adopt_early`'s
        files = await _normalize_into(columns, Path(self._folder))
        return SharedTexts(ids, files)

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

    def free_core(self) -> str | None:
        """The file `mark_free_core` makes, for a worker to look for (`topic_split`)."""
        return None if self._folder is None else str(Path(self._folder) / "free-core")

    def mark_free_core(self) -> None:
        """From now on a core is free for this load's topic matching."""
        if (path := self.free_core()) is not None:
            Path(path).touch()

    def close(self) -> None:
        self._value = None
        if self._early is not None:  # never asked for
            self._early.discard()
            self._early = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


async def _early_files(early: EarlyTexts) -> tuple[str, ...] | None:
    """The files the early job wrote, or None when it failed (logged): the
    texts are then read back and normalised, as when the stored papers are
    not the planned ones."""
    try:
        files = await early.task
        await asyncio.to_thread(_check_readable, files)
    except Exception as exc:  # noqa: BLE001 - whatever failed (a worker's error, a dead worker, a lost file), reading the texts back is the remedy
        log.warning(
            "normalising the new papers' texts early failed (%s: %s); reading them back instead",
            type(exc).__name__,
            exc,
        )
        return None
    return files


def _check_readable(files: Sequence[str]) -> None:
    """Raise unless every file can be opened and holds something."""
    for file in files:
        with Path(file).open("rb") as part:
            if not part.read(1):
                raise EOFError(f"{file} is empty")


async def _normalize_into(columns: PaperColumns, folder: Path, nice: int = 0) -> tuple[str, ...]:
    """The columns and their normal forms into files: at scale a part per
    worker lane, at the same time. Each lane's columns go to it through a
    file too (`normalize_file`), written in frames: the pipe would take
    them as one pickle, whole in this process's memory (~20 MB a lane at
    100,000 papers, and a copy of it), while it may be writing the papers."""
    size = len(columns.titles)  # `EarlyTexts` have no ids yet
    lanes = workers.LANES if size >= workers.WORKER_THRESHOLD else 1
    step = max(1, -(-size // lanes))
    files = tuple(str(folder / f"part-{lane}") for lane in range(lanes))
    parts = [_slice(columns, lane * step, (lane + 1) * step) for lane in range(lanes)]
    del columns
    await asyncio.to_thread(_write_parts, parts, [f"{file}.in" for file in files])
    del parts
    await asyncio.gather(
        *(
            workers.off_lane(lane, size, normalize_file, f"{file}.in", file, nice)
            for lane, file in enumerate(files)
        )
    )
    return files


def _write_parts(parts: Sequence[PaperColumns | _Part], paths: Sequence[str]) -> None:
    for part, path in zip(parts, paths, strict=True):
        with Path(path).open("xb") as out:
            pickle.dump(part, out, protocol=pickle.HIGHEST_PROTOCOL)


def _slice(columns: PaperColumns, start: int, end: int) -> PaperColumns:
    return PaperColumns(
        ids=columns.ids[start:end],
        titles=columns.titles[start:end],
        venues=columns.venues[start:end],
        years=columns.years[start:end],
        summaries=columns.summaries[start:end],
    )


def normalize_file(source: str, path: str, nice: int = 0) -> None:
    """In a worker: `normalize_to_file` of the columns in `source` (removed
    once read), `nice` steps below the usual priority (the worker process is
    replaced after the job; never in a thread of the loading process)."""
    if nice and multiprocessing.parent_process() is not None:
        os.nice(nice)
    with Path(source).open("rb") as given:
        # Written by this load's own process into its private folder.
        columns: PaperColumns = pickle.load(given)
    Path(source).unlink()
    normalize_to_file(columns, path)


def normalize_to_file(columns: PaperColumns, path: str) -> None:
    """In a worker: some papers' columns and normal forms, written to `path`."""
    titles, summaries = normalize_columns(list(columns.titles), columns.summaries)
    columns.summaries = []  # normalised in place: the raw ones are not needed
    with Path(path).open("xb") as out:
        pickle.dump(_Part(columns, titles, summaries), out, protocol=pickle.HIGHEST_PROTOCOL)


def read_texts(files: tuple[str, ...]) -> _Part:
    """Every paper's columns (no raw summaries) and normal forms that
    `normalize_to_file` wrote, in order, each column the files' in turn (a
    file may hold some columns only: `EarlyTexts`' ids)."""
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
    into its stored arrays, `core.search.iter_index_arrays`) and stored as
    corpus version `version` in the database at `target`, through a
    connection of its own, each array written as soon as it is built and
    let go once written: the finished arrays (~130 MB at 100,000 papers)
    are never all held at once. (live papers, why storing failed or None)."""
    part = read_texts(files)
    columns = part.columns
    live = len(columns.ids)
    arrays = iter_index_arrays(
        ids=columns.ids,
        titles=columns.titles,
        venues=columns.venues,
        years=columns.years,
        summaries=part.normal_summaries,
        normal_titles=part.normal_titles,
        between=_let_go,  # a field's temporaries, before the next
        park=SpilledTexts,
    )
    del part, columns  # the generator holds the columns it consumes
    _, problem = workers.with_own_connection(
        target, lambda db: search_store.save(db, arrays, version)
    )
    return live, problem


class SpilledTexts:
    """`core.search.ParkedTexts` in an anonymous temporary file: a field's
    packed texts (~30 MB of summaries at 100,000 papers) are not in memory
    while the postings are built (each chunk is read back as needed), only
    again when stored, after."""

    def __init__(self, packed: NDArray[np.uint8]) -> None:
        # Closed by `take`, or when dropped: it has no name to leave behind.
        self._file = tempfile.TemporaryFile(prefix="paperbot-index-")  # noqa: SIM115
        packed.tofile(self._file)
        self._file.flush()
        fd = self._file.fileno()
        self.texts = PackedTexts(packed, read=lambda start, end: os.pread(fd, end - start, start))

    def take(self) -> NDArray[np.uint8]:
        with self._file:
            self._file.seek(0)
            return np.fromfile(self._file, dtype=np.uint8)


def _let_go() -> None:
    """Freed memory back to the system; first, in a worker (ended after
    its job), the stem cache's ~65,000 title words, asked for no more."""
    fold_word.cache_clear()
    release_free_memory()


def topics_store_from(
    files: tuple[str, ...],
    vocabulary: Vocabulary,
    target: str,
    mark: tuple[int, int],
    free_core: str | None = None,
) -> tuple[str, str | None]:
    """In a worker: the topic corpus and matches of the shared texts, built
    and stored there (`topics_store.build_and_store`), read a file at a time
    and each normal form let go as soon as its matching form is made: the
    corpus is then built and matched without the ~40 MB of normal forms
    beside it, and never holds more than one file's."""
    return topics_store.build_and_store(_streamed(files), True, vocabulary, target, mark, free_core)


def _streamed(files: tuple[str, ...]) -> Iterator[tuple[int, str, str]]:
    """(id, normal title, normal summary) of each paper of the files
    `normalize_to_file` wrote, in order (a file may hold ids alone:
    `EarlyTexts`' come first), one file in memory at a time."""
    ids: deque[int] = deque()
    for path in files:
        with Path(path).open("rb") as source:
            # Written by this load's own workers into its private folder.
            part: _Part = pickle.load(source)
        ids.extend(part.columns.ids)
        yield from _consumed(part, ids)
        del part


def _consumed(part: _Part, ids: deque[int]) -> Iterator[tuple[int, str, str]]:
    """(id, normal title, normal summary) of each paper of `part`, the ids
    taken from the front of `ids`, each text dropped from `part` once
    yielded."""
    columns = part.columns  # ids taken; the raw titles, venues, years: not needed
    for column in (columns.ids, columns.titles, columns.venues, columns.years):
        column.clear()
    titles, summaries = part.normal_titles, part.normal_summaries
    for i in range(len(titles)):
        yield ids.popleft(), titles[i], summaries[i]
        titles[i] = summaries[i] = ""
    titles.clear()
    summaries.clear()
