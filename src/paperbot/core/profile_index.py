"""Fast look-ups for a pick over many readers (pure, numpy only): which
disliked papers a paper nearly duplicates, and every reader's model score
of one paper at once.

Near-duplicates: for unit vectors, cos(c, d) <= sqrt(the squared weight of
c's terms that d shares). So if d shares none of c's k heaviest terms, and
the weight left after them is at most `threshold`² (k is the smallest such),
d cannot be within `threshold`; only papers sharing one of those k terms
(an inverted index lookup) are compared exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from paperbot.core.similarity import PaperVectors


class NearIndex:
    """Papers (positions) by term, for near-duplicate look-ups against them."""

    def __init__(self, vectors: PaperVectors, positions: Sequence[int], threshold: float) -> None:
        rows = np.unique(np.asarray(positions, dtype=np.intp))
        width = vectors.terms.shape[1] if len(vectors) else 1
        flat = vectors.terms[rows].ravel() if len(rows) else np.zeros(0, dtype=np.int32)
        owners = np.repeat(rows, width) if len(rows) else np.zeros(0, dtype=np.intp)
        real = flat >= 0
        order = np.argsort(flat[real], kind="stable")
        self._terms = flat[real][order]
        self._rows = owners[real][order]
        self._threshold = threshold
        self._memo: dict[int, frozenset[int]] = {}

    def near(self, vectors: PaperVectors, position: int) -> frozenset[int]:
        """The indexed papers within the threshold of the paper at `position`."""
        found = self._memo.get(position)
        if found is None:
            found = self._memo[position] = self._near(vectors, position)
        return found

    def _near(self, vectors: PaperVectors, position: int) -> frozenset[int]:
        if len(self._terms) == 0:
            return frozenset()
        terms, weights = vectors.terms[position], vectors.weights[position]
        real = terms >= 0
        terms, weights = terms[real], weights[real]
        if len(terms) == 0:
            return frozenset()
        order = np.argsort(-weights, kind="stable")
        mass = np.cumsum(weights[order] ** 2)
        tails = mass[-1] - mass
        heaviest = int(np.argmax(tails <= self._threshold**2)) + 1
        top = terms[order[:heaviest]]
        low = np.searchsorted(self._terms, top, side="left")
        high = np.searchsorted(self._terms, top, side="right")
        if not (high > low).any():
            return frozenset()
        rows = np.unique(np.concatenate([self._rows[a:b] for a, b in zip(low, high, strict=True)]))
        similar = vectors.similarity(rows, [position])[:, 0] > self._threshold
        return frozenset(int(r) for r in rows[similar])


class ModelStack:
    """Many readers' sparse linear models, scored on one paper at once."""

    def __init__(self, models: Sequence[tuple[NDArray[np.int64], NDArray[np.float64]]]) -> None:
        sizes = [len(terms) for terms, _ in models]
        self._count = len(models)
        if not sizes or sum(sizes) == 0:
            self._terms = np.zeros(0, dtype=np.int64)
            self._weights = np.zeros(0, dtype=np.float64)
            self._owners = np.zeros(0, dtype=np.intp)
            return
        terms = np.concatenate([t for t, _ in models])
        order = np.argsort(terms, kind="stable")
        self._terms = terms[order]
        self._weights = np.concatenate([w for _, w in models])[order]
        self._owners = np.repeat(np.arange(len(models)), sizes)[order]

    def scores(self, vectors: PaperVectors, position: int) -> NDArray[np.float64]:
        """Each model's score of the paper at `position`, in model order."""
        result = np.zeros(self._count, dtype=np.float64)
        terms, weights = vectors.terms[position], vectors.weights[position]
        real = terms >= 0
        for term, weight in zip(terms[real], weights[real], strict=True):
            low = np.searchsorted(self._terms, term, side="left")
            high = np.searchsorted(self._terms, term, side="right")
            if high > low:
                np.add.at(result, self._owners[low:high], self._weights[low:high] * weight)
        return result
