"""core.profile_model: readers' logistic models fitted together (in the span
of their voted papers) are the ones gradient descent on the term weights
gives, reader by reader."""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import pytest

from paperbot.core.profile_model import (
    LOGISTIC_L2,
    LOGISTIC_STEP_SIZE,
    LOGISTIC_STEPS,
    ReaderModel,
    _padded,
    logistic,
    logistic_fits,
    reader_model,
    reader_models,
)
from paperbot.core.similarity import PaperVectors
from tests.support.profile import WORDS

rng = random.Random(4)
VECTORS = PaperVectors.build([" ".join(rng.sample(WORDS, 6)) for _ in range(60)])


def descent_on_weights(
    vectors: PaperVectors, liked: Sequence[int], disliked: Sequence[int]
) -> ReaderModel:
    """The straightforward fit: a dense matrix of the voted papers over their
    terms, gradient descent on the term weights (the reference)."""
    positions = [*liked, *disliked]
    rows = vectors.terms[positions]
    terms = np.unique(rows[rows >= 0]).astype(np.int64)
    matrix = np.zeros((len(positions), len(terms)))
    for row, position in enumerate(positions):
        real = vectors.terms[position] >= 0
        matrix[row, np.searchsorted(terms, vectors.terms[position][real])] = vectors.weights[
            position
        ][real]
    labels = np.concatenate([np.ones(len(liked)), np.zeros(len(disliked))])
    balance = np.where(labels > 0, 0.5 / len(liked), 0.5 / len(disliked))
    weights, bias = np.zeros(len(terms)), 0.0
    for _ in range(LOGISTIC_STEPS):
        error = (1.0 / (1.0 + np.exp(-(matrix @ weights + bias))) - labels) * balance
        weights -= LOGISTIC_STEP_SIZE * (matrix.T @ error + LOGISTIC_L2 * weights / len(labels))
        bias -= LOGISTIC_STEP_SIZE * float(error.sum())
    return ReaderModel(terms, weights, "logistic")


def votes(seed: int, likes: int, dislikes: int) -> tuple[list[int], list[int]]:
    chosen = random.Random(seed).sample(range(len(VECTORS)), likes + dislikes)
    return chosen[:likes], chosen[likes:]


CASES = [votes(1, 3, 3), votes(2, 5, 3), votes(3, 12, 9), votes(4, 25, 25), votes(5, 3, 30)]


@pytest.mark.parametrize(("liked", "disliked"), CASES)
def test_one_reader_matches_descent_on_the_weights(liked: list[int], disliked: list[int]) -> None:
    expected = descent_on_weights(VECTORS, liked, disliked)
    found = logistic(VECTORS, liked, disliked)
    assert np.array_equal(found.terms, expected.terms)
    assert np.allclose(found.weights, expected.weights, rtol=1e-9, atol=1e-12)


def test_readers_fitted_together_match_each_fitted_alone() -> None:
    together = logistic_fits(VECTORS, CASES)
    for (liked, disliked), (model, scores) in zip(CASES, together, strict=True):
        alone = logistic(VECTORS, liked, disliked)
        assert np.allclose(model.weights, alone.weights, rtol=1e-9, atol=1e-12)
        voted = np.asarray([*liked, *disliked], dtype=np.intp)
        assert np.allclose(scores, model.score(VECTORS, voted))


@pytest.mark.parametrize("learn", [True, False])
def test_reader_models_are_each_reader_model(learn: bool) -> None:
    pairs = [*CASES, ([0], []), ([], []), ([1, 2], [3])]
    for pair, model in zip(pairs, reader_models(VECTORS, pairs, learn=learn), strict=True):
        alone = reader_model(VECTORS, *pair, learn=learn)
        assert model.kind == alone.kind
        assert np.allclose(model.weights, alone.weights, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    ("size", "padded"), [(1, 8), (6, 8), (9, 16), (50, 56), (64, 64), (65, 80), (300, 320)]
)
def test_vote_counts_round_up_to_a_few_sizes(size: int, padded: int) -> None:
    assert _padded(size) == padded
