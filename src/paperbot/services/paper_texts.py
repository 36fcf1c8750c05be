"""The papers' texts in normal form, read and normalised once for a load
that builds both the search index and the topic corpus from scratch.

Both start from `core.text.normalize` of every title and summary; at
100,000 papers that is seconds of NFKC, case folding and OpenCC, so it is
worked out once and shared (split in two halves, one per worker process).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from paperbot.core.models import PaperColumns
from paperbot.core.text import normalize_columns
from paperbot.services import workers
from paperbot.storage import search_index
from paperbot.storage.backend import Database


@dataclass(frozen=True, slots=True)
class NormalColumns:
    """Every live paper in id order: `columns` as stored (its `summaries`
    left empty), and the normal form of each title and summary."""

    columns: PaperColumns
    titles: list[str]
    summaries: list[str]


class PaperTexts:
    """Read and normalised on first `get`, then shared by every caller."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._lock = asyncio.Lock()
        self._value: NormalColumns | None = None
        self.seconds = 0.0
        """How long reading and normalising took."""

    async def get(self) -> NormalColumns:
        async with self._lock:
            if self._value is None:
                start = time.perf_counter()
                columns = await search_index.paper_columns(self._db)
                titles, summaries = await _normalized(columns)
                columns.summaries = []
                self._value = NormalColumns(columns, titles, summaries)
                self.seconds = time.perf_counter() - start
            return self._value


async def _normalized(columns: PaperColumns) -> tuple[list[str], list[str]]:
    """`normalize_columns` of the titles and summaries: at scale a part per
    worker lane, at the same time."""
    size = len(columns.ids)
    if size < workers.WORKER_THRESHOLD:
        return await asyncio.to_thread(
            normalize_columns, list(columns.titles), list(columns.summaries)
        )
    step = -(-size // workers.LANES)
    parts = await asyncio.gather(
        *(
            workers.in_lane(
                lane,
                normalize_columns,
                columns.titles[start : start + step],
                columns.summaries[start : start + step],
            )
            for lane, start in enumerate(range(0, size, step))
        )
    )
    titles = [t for part_titles, _ in parts for t in part_titles]
    summaries = [s for _, part_summaries in parts for s in part_summaries]
    return titles, summaries
