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

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from paperbot.core.arrays import distinct
from paperbot.core.similarity import PaperVectors


class NearIndex:
    """Papers (positions) by term, for near-duplicate look-ups against them.

    Immutable but for its memo: `extended` returns a new index with more
    papers, so a pick running on this one is never disturbed by a 👎.
    """

    def __init__(self, vectors: PaperVectors, positions: Sequence[int], threshold: float) -> None:
        rows = distinct(np.asarray(positions, dtype=np.intp))
        width = vectors.terms.shape[1] if len(vectors) else 1
        flat = vectors.terms[rows].ravel() if len(rows) else np.zeros(0, dtype=np.int32)
        owners = np.repeat(rows, width) if len(rows) else np.zeros(0, dtype=np.intp)
        real = flat >= 0
        order = np.argsort(flat[real], kind="stable")
        self._terms = flat[real][order]
        self._rows = owners[real][order]
        self._threshold = threshold
        self._memo: dict[int, frozenset[int]] = {}

    def extended(self, vectors: PaperVectors, positions: Sequence[int]) -> NearIndex:
        """This index with `positions` added (a paper already in it stays once)."""
        added = NearIndex(vectors, positions, self._threshold)
        at = np.searchsorted(self._terms, added._terms, side="right")
        added._terms = np.insert(self._terms, at, added._terms)
        added._rows = np.insert(self._rows, at, added._rows)
        return added

    @property
    def nbytes(self) -> int:
        return int(self._terms.nbytes + self._rows.nbytes)

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
        rows = distinct(np.concatenate([self._rows[a:b] for a, b in zip(low, high, strict=True)]))
        similar = vectors.similarity(rows, [position])[:, 0] > self._threshold
        return frozenset(int(r) for r in rows[similar])


class ModelStack:
    """Many readers' sparse linear models, scored on one paper at once.

    Entries are sorted by term; `rows` maps a user to their model's row
    (rows 0, 1, ... in the given order when no users are named). Immutable:
    `replaced` returns a new stack, so a pick running on this one is never
    disturbed by a vote.
    """

    def __init__(
        self,
        models: Sequence[tuple[NDArray[np.int64], NDArray[np.float64]]],
        users: Sequence[int] | None = None,
    ) -> None:
        self.rows: Mapping[int, int] = dict(
            zip(range(len(models)) if users is None else users, range(len(models)), strict=True)
        )
        sizes = [len(terms) for terms, _ in models]
        if sum(sizes) == 0:
            self.terms = np.zeros(0, dtype=np.int64)
            self.weights = np.zeros(0, dtype=np.float64)
            self._owners = np.zeros(0, dtype=np.intp)
            return
        terms = np.concatenate([t for t, _ in models])
        order = np.argsort(terms, kind="stable")
        self.terms = terms[order]
        self.weights = np.concatenate([w for _, w in models])[order]
        self._owners = np.repeat(np.arange(len(models)), sizes)[order]

    def replaced(
        self, models: Mapping[int, tuple[NDArray[np.int64], NDArray[np.float64]]]
    ) -> ModelStack:
        """This stack with these users' models put in (a new user gets the
        next row; an empty model leaves the user's row scoring 0)."""
        rows = dict(self.rows)
        for user in models:
            rows.setdefault(user, len(rows))
        changed = np.array([rows[user] for user in models], dtype=np.intp)
        keep = self._owners != changed[0] if len(changed) == 1 else ~np.isin(self._owners, changed)
        sizes = [len(terms) for terms, _ in models.values()]
        new_terms = np.concatenate([np.zeros(0, np.int64), *(t for t, _ in models.values())])
        new_weights = np.concatenate([np.zeros(0), *(w for _, w in models.values())])
        new_owners = np.repeat(changed, sizes)
        order = np.argsort(new_terms, kind="stable")
        kept_terms = self.terms[keep]
        at = np.searchsorted(kept_terms, new_terms[order], side="right")
        stack = ModelStack([])
        stack.rows = rows
        stack.terms = np.insert(kept_terms, at, new_terms[order])
        stack.weights = np.insert(self.weights[keep], at, new_weights[order])
        stack._owners = np.insert(self._owners[keep], at, new_owners[order])
        return stack

    @property
    def nbytes(self) -> int:
        return int(self.terms.nbytes + self.weights.nbytes + self._owners.nbytes)

    def scores(self, vectors: PaperVectors, position: int) -> NDArray[np.float64]:
        """Each row's score of the paper at `position`, in row order."""
        result = np.zeros(len(self.rows), dtype=np.float64)
        terms, weights = vectors.terms[position], vectors.weights[position]
        real = terms >= 0
        for term, weight in zip(terms[real], weights[real], strict=True):
            low = np.searchsorted(self.terms, term, side="left")
            high = np.searchsorted(self.terms, term, side="right")
            if high > low:
                np.add.at(result, self._owners[low:high], self.weights[low:high] * weight)
        return result

    def score_of(self, scores: NDArray[np.float64], user: int) -> float:
        """A user's entry of `scores` (0 for a user with no row)."""
        row = self.rows.get(user)
        return 0.0 if row is None else float(scores[row])
