"""What `build_field`'s first pass found in each chunk of texts, kept for
its second pass: the chunk's distinct grams, how many papers hold each, and
those papers (positions within the chunk), in gram then paper order. The
second pass writes them into the final postings without working out any
gram again. Kept in batches of about `BATCH_BYTES`, each `park`ed until
read back (a caller may keep them out of memory meanwhile: a few bytes per
(gram, paper) pair, tens of megabytes for a large field)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

BATCH_BYTES = 4 << 20
"""About how many bytes of chunks one parked batch holds."""

# Every part of a batch starts on 8 bytes, so each is read back as a view.
_ALIGN = 8
# A batch's first bytes: zero, never a `pack_texts` array's mark ("1"), so
# a `park` that also reads texts (`ParkedTexts`) finds none in it.
_HEADER = np.zeros(_ALIGN, dtype=np.uint8)


class Parked(Protocol):
    """Bytes parked until taken back (once)."""

    def take(self) -> NDArray[np.uint8]: ...


class KeptBytes:
    """`Parked` in memory."""

    def __init__(self, data: NDArray[np.uint8]) -> None:
        self._data = data

    def take(self) -> NDArray[np.uint8]:
        return self._data


Runs = tuple[
    int, NDArray[np.int64], NDArray[np.unsignedinteger[Any]], NDArray[np.unsignedinteger[Any]]
]
"""(chunk start, its distinct grams, each one's paper count, the papers by
gram: positions within the chunk)."""


class ChunkRuns:
    """Each chunk's runs (`add`), given back in the same order (`replay`,
    once), parked a batch at a time."""

    def __init__(
        self,
        chunk: int,
        park: Callable[[NDArray[np.uint8]], Parked] = KeptBytes,
        batch: int = BATCH_BYTES,
    ) -> None:
        # Counts and positions within a chunk stay below `chunk`.
        self._local: np.dtype[np.unsignedinteger[Any]] = (
            np.dtype(np.uint16) if chunk < 1 << 16 else np.dtype(np.uint32)
        )
        self._park = park
        self._batch = batch
        self._pending: list[NDArray[np.uint8]] = []
        self._size = 0
        self._records: list[tuple[int, int, int]] = []
        self._batches: deque[tuple[Parked, list[tuple[int, int, int]]]] = deque()

    def add(
        self,
        start: int,
        grams: NDArray[np.int64],
        counts: NDArray[np.integer[Any]],
        papers: NDArray[np.integer[Any]],
    ) -> None:
        """The runs of the chunk at `start`: `papers` are positions within it."""
        self._records.append((start, len(grams), len(papers)))
        for part in (
            grams.astype(np.int64, copy=False),
            counts.astype(self._local),
            papers.astype(self._local),
        ):
            raw = part.view(np.uint8)
            self._pending.append(raw)
            pad = -len(raw) % _ALIGN
            if pad:
                self._pending.append(_HEADER[:pad])
            self._size += len(raw) + pad
        if self._size >= self._batch:
            self._flush()

    def _flush(self) -> None:
        if self._records:
            data = np.concatenate([_HEADER, *self._pending])
            self._batches.append((self._park(data), self._records))
        self._pending, self._size, self._records = [], 0, []

    def replay(self) -> Iterator[Runs]:
        """Every chunk's runs in the order added, each batch let go once read."""
        self._flush()
        local = self._local.itemsize
        while self._batches:
            parked, records = self._batches.popleft()
            data = parked.take()
            del parked
            at = _ALIGN
            for start, grams, papers in records:
                gram_view = data[at : at + 8 * grams].view(np.int64)
                at += 8 * grams
                counts = data[at : at + local * grams].view(self._local)
                at += _aligned(local * grams)
                positions = data[at : at + local * papers].view(self._local)
                at += _aligned(local * papers)
                yield start, gram_view, counts, positions


def _aligned(size: int) -> int:
    return size + (-size % _ALIGN)
