"""The index's data: per-field inverted indexes and per-paper columns,
and the ranked result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True, slots=True)
class FieldIndex:
    """An inverted index of one field: sorted gram keys -> paper positions."""

    keys: NDArray[np.int64]
    indptr: NDArray[np.int64]
    docs: NDArray[np.int32]
    # Unigram keys whose postings were dropped as too common (sorted).
    common: NDArray[np.int64] = dataclass_field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def is_common(self, key: int) -> bool:
        at = int(np.searchsorted(self.common, key))
        return at < len(self.common) and int(self.common[at]) == key

    def df(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        counts: NDArray[np.int64] = self.indptr[positions + 1] - self.indptr[positions]
        return counts

    def lookup(self, keys: NDArray[np.int64]) -> NDArray[np.int64]:
        """Vocabulary position of each key, or -1 when absent."""
        if len(self.keys) == 0:
            return np.full(len(keys), -1, dtype=np.int64)
        at = np.searchsorted(self.keys, keys)
        at = np.minimum(at, len(self.keys) - 1)
        return np.where(self.keys[at] == keys, at, -1).astype(np.int64)


@dataclass(frozen=True, slots=True)
class SearchIndex:
    """Everything a query needs, by paper position 0..n-1."""

    ids: NDArray[np.int64]
    years: NDArray[np.int32]
    venue_codes: NDArray[np.int32]
    venues: tuple[str, ...]
    titles: tuple[str, ...]  # normalised
    summaries: tuple[str, ...]  # normalised
    title: FieldIndex
    summary: FieldIndex
    # Positions of dead entries (sorted): papers removed or changed since
    # they were indexed (a changed one is appended again). Their postings
    # stay until a full build compacts them; no ranking returns them.
    dead: NDArray[np.int64] = dataclass_field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def size(self) -> int:
        return len(self.ids)

    @property
    def live(self) -> int:
        """Papers a search can return (entries that are not dead)."""
        return len(self.ids) - len(self.dead)


@dataclass(frozen=True, slots=True)
class Ranking:
    """Ranked paper ids with their scores, best first, and per paper the
    normalised strings that matched (for highlighting)."""

    ids: tuple[int, ...]
    scores: tuple[float, ...]
    # A tuple, or a `LazySequence` working out later results on first read.
    matched: Sequence[tuple[str, ...]]


EMPTY_RANKING = Ranking((), (), ())
