"""core.profile_index: an index extended by new 👎 and a stack with models
swapped in answer as ones built from scratch, and leave the old ones as they were."""

from __future__ import annotations

import numpy as np
import pytest

from paperbot.core.profile import NEAR_DUPLICATE, ReaderModel, reader_model
from paperbot.core.profile_index import ModelStack, NearIndex
from paperbot.core.similarity import PaperVectors

TEXTS = [
    "diffusion models image generation denoising",  # 0
    "diffusion models video generation denoising",  # 1
    "reinforcement learning from human feedback reward model",  # 2
    "reward model preference optimization human feedback",  # 3
    "graph neural networks message passing",  # 4
    "diffusion models image generation denoising",  # 5: a copy of 0
    "reinforcement learning from human feedback reward model",  # 6: a copy of 2
    "protein folding structure prediction",  # 7
]
VECTORS = PaperVectors.build(TEXTS)


@pytest.mark.parametrize(
    ("first", "added"), [([], [0]), ([4], [2, 0]), ([0, 2], [2, 7]), ([1], [])]
)
def test_an_extended_index_answers_as_a_fresh_one(first: list[int], added: list[int]) -> None:
    old = NearIndex(VECTORS, first, NEAR_DUPLICATE)
    before = [old.near(VECTORS, p) for p in range(len(TEXTS))]
    extended = old.extended(VECTORS, added)
    fresh = NearIndex(VECTORS, [*first, *added], NEAR_DUPLICATE)
    for position in range(len(TEXTS)):
        assert extended.near(VECTORS, position) == fresh.near(VECTORS, position)
        assert old.near(VECTORS, position) == before[position]


MODELS = {
    10: reader_model(VECTORS, [0], [2]),
    11: reader_model(VECTORS, [3], []),
    12: reader_model(VECTORS, [4, 7], [1]),
}


@pytest.mark.parametrize(
    "changes",
    [
        {11: reader_model(VECTORS, [7], [0])},
        {13: reader_model(VECTORS, [2], [])},
        {10: reader_model(VECTORS, [], []), 12: reader_model(VECTORS, [0, 5], [3])},
    ],
)
def test_a_stack_with_models_swapped_scores_as_a_fresh_one(changes: dict[int, ReaderModel]) -> None:
    old = ModelStack([(m.terms, m.weights) for m in MODELS.values()], list(MODELS))
    before = [old.scores(VECTORS, p) for p in range(len(TEXTS))]
    models = MODELS | changes
    swapped = old.replaced({u: (m.terms, m.weights) for u, m in changes.items()})
    fresh = ModelStack([(m.terms, m.weights) for m in models.values()], list(models))
    for position in range(len(TEXTS)):
        mine, theirs = swapped.scores(VECTORS, position), fresh.scores(VECTORS, position)
        for user in models:
            assert swapped.score_of(mine, user) == pytest.approx(fresh.score_of(theirs, user))
        assert np.array_equal(old.scores(VECTORS, position), before[position])
    assert swapped.score_of(np.zeros(len(swapped.rows)), 99) == 0.0
