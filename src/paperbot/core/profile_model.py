"""A reader's taste as a linear model over paper terms (pure, numpy only).

`ReaderModel` holds sparse term weights, like a centroid. With few votes, or
votes of one kind only, it is Rocchio; with at least `LOGISTIC_MIN_EACH`
votes of each kind, an L2-regularised logistic regression on the voted
papers; either way scaled to at most `PROFILE_WEIGHT` x `min(1, votes /
FULL_CONFIDENCE_VOTES)` on the reader's voted papers (`core.profile` says why).

`reader_models` fits many readers at once: a server's first pick after a
corpus change needs every reader's model, and fitting them one by one spent
its time in numpy's per-call overhead (150 small steps x 1,000 readers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from paperbot.core.arrays import sorted_union
from paperbot.core.similarity import PaperVectors

PROFILE_WEIGHT = 1.0
FULL_CONFIDENCE_VOTES = 5
DISLIKE_FACTOR = 0.5
LOGISTIC_MIN_EACH = 3
LOGISTIC_L2 = 1.0
LOGISTIC_STEPS = 150
LOGISTIC_STEP_SIZE = 2.0
# Gram cells worked out at once when fitting many readers.
_GRAM_CELLS = 1 << 20

FloatArray = NDArray[np.float64]
Positions = NDArray[np.intp]
# (liked positions, disliked positions) of one reader.
VotePair = tuple[Sequence[int], Sequence[int]]


@dataclass(frozen=True, slots=True)
class ReaderModel:
    """A linear score over paper terms: sorted term ids and their weights."""

    terms: NDArray[np.int64]
    weights: FloatArray
    kind: str = "none"  # "rocchio", "logistic" or "none"

    @classmethod
    def none(cls) -> ReaderModel:
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))

    def score(self, vectors: PaperVectors, positions: Positions) -> FloatArray:
        """The model's score of each paper (0 for papers sharing no term)."""
        if len(self.terms) == 0 or len(positions) == 0:
            return np.zeros(len(positions), dtype=np.float64)
        terms, weights = vectors.terms[positions], vectors.weights[positions]
        at = np.searchsorted(self.terms, terms).clip(0, len(self.terms) - 1)
        shared = (self.terms[at] == terms) & (terms >= 0)
        found: FloatArray = np.where(shared, weights * self.weights[at], 0.0).sum(axis=1)
        return found

    def scaled(self, factor: float) -> ReaderModel:
        return ReaderModel(self.terms, self.weights * factor, self.kind)


def _centroid(
    vectors: PaperVectors, positions: Sequence[int]
) -> tuple[NDArray[np.int64], FloatArray]:
    """The unit-length sum of the papers' vectors, sparse (sorted terms, weights)."""
    rows = np.asarray(positions, dtype=np.intp)
    terms, weights = vectors.terms[rows].ravel(), vectors.weights[rows].ravel()
    real = terms >= 0
    unique, inverse = np.unique(terms[real].astype(np.int64), return_inverse=True)
    summed = np.bincount(inverse, weights=weights[real], minlength=len(unique)).astype(np.float64)
    norm = float(np.linalg.norm(summed))
    return unique, summed / max(norm, 1e-12)


def rocchio(vectors: PaperVectors, liked: Sequence[int], disliked: Sequence[int]) -> ReaderModel:
    """Unit centroid of the liked papers minus `DISLIKE_FACTOR` x that of the
    disliked (sparse: a server's thousands of votes cost one bincount)."""
    like_terms, like_weights = _centroid(vectors, liked)
    dis_terms, dis_weights = _centroid(vectors, disliked)
    terms = sorted_union(like_terms, dis_terms)
    weights = np.zeros(len(terms), dtype=np.float64)
    weights[np.searchsorted(terms, like_terms)] += like_weights
    weights[np.searchsorted(terms, dis_terms)] -= DISLIKE_FACTOR * dis_weights
    return ReaderModel(terms, weights, "rocchio")


@dataclass(frozen=True, slots=True)
class _Problem:
    """One reader's logistic regression: their voted papers as rows."""

    positions: Positions
    labels: FloatArray
    balance: FloatArray

    @classmethod
    def of(cls, liked: Sequence[int], disliked: Sequence[int]) -> _Problem:
        positions = np.asarray([*liked, *disliked], dtype=np.intp)
        labels = np.concatenate([np.ones(len(liked)), np.zeros(len(disliked))])
        balance = np.where(labels > 0, 0.5 / len(liked), 0.5 / len(disliked))
        return cls(positions, labels, balance)


def _padded(size: int) -> int:
    """Readers whose vote counts round up to one size are fitted together
    (zero rows pad the rest: under a quarter more rows per reader)."""
    grain = max(8, 1 << max(0, size.bit_length() - 3))
    return -(-size // grain) * grain


def _grams(vectors: PaperVectors, rows: NDArray[np.intp]) -> FloatArray:
    """`K = X @ X.T` for each reader (row r of `rows`: their voted papers'
    positions, -1 padding), summed over the terms two papers share: a
    paper has `TERMS_KEPT` terms, so this is a few products per pair, where
    a matrix product per reader over their ~1,000 terms costs more in BLAS
    set-up (and thread hand-offs) than in arithmetic."""
    count, size = rows.shape
    reader, slot = np.nonzero(rows >= 0)
    terms, weights = vectors.terms[rows[reader, slot]], vectors.weights[rows[reader, slot]]
    real = terms >= 0
    reader = np.broadcast_to(reader[:, None], terms.shape)[real]
    slot = np.broadcast_to(slot[:, None], terms.shape)[real]
    term, weight = terms[real].astype(np.int64), weights[real]
    vocabulary = int(np.max(term, initial=0)) + 1
    order = np.argsort((reader * vocabulary + term) * size + slot)
    reader, slot, term, weight = reader[order], slot[order], term[order], weight[order]
    # Entries of one (reader, term) are adjacent: every pair of them is a product.
    new = np.ones(len(term), dtype=bool)
    new[1:] = (reader[1:] != reader[:-1]) | (term[1:] != term[:-1])
    start = np.maximum.accumulate(np.where(new, np.arange(len(term)), 0))
    group = np.cumsum(new) - 1
    width = np.bincount(group)[group]
    left = np.repeat(np.arange(len(term)), width)
    right = start[left] + np.arange(len(left)) - np.repeat(np.cumsum(width) - width, width)
    cell = (reader[left] * size + slot[left]) * size + slot[right]
    summed = np.bincount(cell, weights=weight[left] * weight[right], minlength=count * size * size)
    gram: FloatArray = summed.astype(np.float64, copy=False).reshape(count, size, size)
    return gram


def _descend(vectors: PaperVectors, problems: Sequence[_Problem], size: int) -> FloatArray:
    """Gradient descent for many readers at once, in the span of each one's
    voted papers: started at 0, the weights stay `X.T @ a`, so the step
    `w -= s (X.T e + l2 w / n)` is `a -= s (e + l2 a / n)` with the margin
    `X @ w = K @ a` (K = X @ X.T: votes x votes, not votes x terms). The same
    iterates as descending on the weights, up to rounding. Returns each
    reader's `a` (0 on padding rows)."""
    count = len(problems)
    rows = np.full((count, size), -1, dtype=np.intp)
    labels = np.zeros((count, size), dtype=np.float64)
    balance = np.zeros((count, size), dtype=np.float64)  # 0: a padding row never moves
    decay = np.zeros((count, 1), dtype=np.float64)
    for row, problem in enumerate(problems):
        n = len(problem.labels)
        rows[row, :n] = problem.positions
        labels[row, :n], balance[row, :n] = problem.labels, problem.balance
        decay[row] = LOGISTIC_L2 / n
    gram = np.zeros((count, size, size), dtype=np.float64)
    chunk = max(1, _GRAM_CELLS // (size * size))  # bounds the pair arrays' memory
    for first in range(0, count, chunk):
        gram[first : first + chunk] = _grams(vectors, rows[first : first + chunk])
    dual = np.zeros((count, size), dtype=np.float64)
    bias = np.zeros((count, 1), dtype=np.float64)
    for _ in range(LOGISTIC_STEPS):
        margin = np.einsum("rij,rj->ri", gram, dual) + bias
        error = (1.0 / (1.0 + np.exp(-margin)) - labels) * balance
        dual -= LOGISTIC_STEP_SIZE * (error + decay * dual)
        bias -= LOGISTIC_STEP_SIZE * error.sum(axis=1, keepdims=True)
    return dual


def _weights(vectors: PaperVectors, positions: Positions, dual: FloatArray) -> ReaderModel:
    """`X.T @ a` as a sparse model over the terms of the voted papers."""
    terms, weights = vectors.terms[positions], vectors.weights[positions]
    real = terms >= 0
    unique, inverse = np.unique(terms[real], return_inverse=True)
    contributions = (weights * dual[:, None])[real]
    summed = np.bincount(inverse.ravel(), weights=contributions, minlength=len(unique))
    return ReaderModel(unique.astype(np.int64), summed.astype(np.float64), "logistic")


def logistic_fits(
    vectors: PaperVectors, pairs: Sequence[VotePair]
) -> list[tuple[ReaderModel, FloatArray]]:
    """L2-regularised logistic regression on each reader's voted papers
    (unscaled), with its score of those papers. Classes are balanced by
    weight; the bias is fitted but left out of the model, which only orders
    papers (a paper sharing no term scores 0, as with Rocchio)."""
    problems = [_Problem.of(liked, disliked) for liked, disliked in pairs]
    by_size: dict[int, list[int]] = {}
    for index, problem in enumerate(problems):
        by_size.setdefault(_padded(len(problem.labels)), []).append(index)
    found: dict[int, tuple[ReaderModel, FloatArray]] = {}
    for size, members in by_size.items():
        dual = _descend(vectors, [problems[i] for i in members], size)
        for row, index in enumerate(members):
            positions = problems[index].positions
            model = _weights(vectors, positions, dual[row, : len(positions)])
            found[index] = (model, model.score(vectors, positions))
    return [found[index] for index in range(len(problems))]


def logistic(vectors: PaperVectors, liked: Sequence[int], disliked: Sequence[int]) -> ReaderModel:
    """One reader's logistic model (see `logistic_fits`)."""
    return logistic_fits(vectors, [(liked, disliked)])[0][0]


def _scaled(model: ReaderModel, voted_scores: FloatArray, votes: int) -> ReaderModel:
    peak = float(np.max(np.abs(voted_scores))) if len(voted_scores) else 0.0
    if peak <= 0:
        return ReaderModel.none()
    confidence = min(1.0, votes / FULL_CONFIDENCE_VOTES)
    return model.scaled(PROFILE_WEIGHT * confidence / peak)


def learns(liked: Sequence[int], disliked: Sequence[int]) -> bool:
    """Whether a reader's votes are enough for their own classifier."""
    return min(len(liked), len(disliked)) >= LOGISTIC_MIN_EACH


def reader_models(
    vectors: PaperVectors, pairs: Sequence[VotePair], *, learn: bool = True
) -> list[ReaderModel]:
    """Each reader's model, scaled: at most `PROFILE_WEIGHT` x confidence in
    absolute value on the papers they voted on (`learn=False`: Rocchio only,
    for a whole server's votes). The logistic ones are fitted together."""
    fitted = [i for i, (liked, disliked) in enumerate(pairs) if learn and learns(liked, disliked)]
    fits = dict(zip(fitted, logistic_fits(vectors, [pairs[i] for i in fitted]), strict=True))
    models = []
    for index, (liked, disliked) in enumerate(pairs):
        votes = len(liked) + len(disliked)
        if votes == 0:
            models.append(ReaderModel.none())
            continue
        if index in fits:
            model, scores = fits[index]
        else:
            model = rocchio(vectors, liked, disliked)
            scores = model.score(vectors, np.asarray([*liked, *disliked], dtype=np.intp))
        models.append(_scaled(model, scores, votes))
    return models


def reader_model(
    vectors: PaperVectors,
    liked: Sequence[int],
    disliked: Sequence[int],
    *,
    learn: bool = True,
) -> ReaderModel:
    """One reader's scaled model (see `reader_models`)."""
    return reader_models(vectors, [(liked, disliked)], learn=learn)[0]
