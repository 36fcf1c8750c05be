"""The papers' texts in normal form, read and normalised once for a load
that builds both the search index and the topic corpus from scratch.

Both start from `core.text.normalize` of every title and summary; at
100,000 papers that is seconds of NFKC, case folding and OpenCC, so it is
worked out once and shared: split in two halves, one per worker process.
The normal forms never pass through this process: each half is written to
a private temporary file, and the two builders (worker processes too) read
the files. This process holds the stored columns alone, once.
"""

from __future__ import annotations

import asyncio
import pickle
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperbot.core.models import PaperColumns
from paperbot.core.search import SearchIndex, build_index_columns
from paperbot.core.text import normalize_columns
from paperbot.core.topics import Vocabulary, stored_form
from paperbot.services import workers
from paperbot.storage import search_index
from paperbot.storage.backend import Database


@dataclass(frozen=True, slots=True)
class SharedTexts:
    """Every live paper in id order: `columns` as stored (its `summaries`
    left empty: their normal forms are in `files`, in order)."""

    columns: PaperColumns
    files: tuple[str, ...]


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
                columns.summaries = []
                self._value = SharedTexts(columns, files)
                self.seconds = time.perf_counter() - start
            return self._value

    def close(self) -> None:
        self._value = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


async def _normalize_into(columns: PaperColumns, folder: Path) -> tuple[str, ...]:
    """`normalize_columns` of the titles and summaries into files: at scale
    a part per worker lane, at the same time."""
    size = len(columns.ids)
    lanes = workers.LANES if size >= workers.WORKER_THRESHOLD else 1
    step = max(1, -(-size // lanes))
    files = tuple(str(folder / f"part-{lane}") for lane in range(lanes))
    await asyncio.gather(
        *(
            workers.off_lane(
                lane,
                size,
                normalize_to_file,
                columns.titles[lane * step : (lane + 1) * step],
                columns.summaries[lane * step : (lane + 1) * step],
                files[lane],
            )
            for lane in range(lanes)
        )
    )
    return files


def normalize_to_file(titles: list[str], summaries: list[str], path: str) -> None:
    """In a worker: the normal forms of one part, written to `path`."""
    normal = normalize_columns(titles, summaries)
    with Path(path).open("xb") as out:
        pickle.dump(normal, out, protocol=pickle.HIGHEST_PROTOCOL)


def read_texts(files: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The normal titles and summaries `normalize_to_file` wrote, in order."""
    titles: list[str] = []
    summaries: list[str] = []
    for path in files:
        with Path(path).open("rb") as source:
            # Written by this load's own workers into its private folder.
            part_titles, part_summaries = pickle.load(source)
        titles += part_titles
        summaries += part_summaries
    return titles, summaries


def build_index_from(texts: SharedTexts) -> SearchIndex:
    """In a worker: the search index of the shared texts."""
    normal_titles, normal_summaries = read_texts(texts.files)
    columns = texts.columns
    return build_index_columns(
        ids=columns.ids,
        titles=columns.titles,
        venues=columns.venues,
        years=columns.years,
        summaries=normal_summaries,
        normal_titles=normal_titles,
    )


def topics_stored_form_from(
    ids: list[int], files: tuple[str, ...], vocabulary: Vocabulary
) -> dict[str, Any]:
    """In a worker: the topic corpus and matches of the shared texts, stored form."""
    titles, summaries = read_texts(files)
    rows = list(zip(ids, titles, summaries, strict=True))
    del titles, summaries
    return stored_form(rows, vocabulary, normal=True)
