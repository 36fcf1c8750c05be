"""core.similar: more like this (cosine plus shared topics), table-driven."""

from __future__ import annotations

import numpy as np
import pytest

from paperbot.core.similar import concept_matrix, more_like
from paperbot.core.similarity import PaperVectors

TEXTS = [
    "Mixture of experts routing for sparse language models",
    "Sparse mixture of experts routing with load balancing",
    "混合专家模型的路由与负载均衡",
    "Denoising diffusion image synthesis",
    "Graph neural networks",
]
VECTORS = PaperVectors.build(TEXTS)
# Topic 0 (MoE) matches 0, 1, 2; topic 1 (diffusion) matches 3.
CONCEPTS = concept_matrix(len(TEXTS), [np.array([0, 1, 2]), np.array([3])])


@pytest.mark.parametrize(
    ("anchor", "expected_first", "expected_in"),
    [(0, 1, {1, 2}), (2, 0, {0, 1})],
)
def test_neighbours(anchor: int, expected_first: int, expected_in: set[int]) -> None:
    found = more_like(VECTORS, CONCEPTS, anchor, limit=2)
    assert found[0].position == expected_first
    assert {n.position for n in found} == expected_in
    assert all(n.shared == (0,) for n in found)
    assert anchor not in {n.position for n in found}


def test_chinese_only_paper_finds_english_titles_by_shared_topic() -> None:
    found = more_like(VECTORS, CONCEPTS, 2, limit=5)
    assert {0, 1} <= {n.position for n in found}
    assert 4 not in {n.position for n in found}  # nothing in common


@pytest.mark.parametrize("limit", [0, 1, 3])
def test_limit_and_exclude(limit: int) -> None:
    exclude = np.zeros(len(TEXTS), dtype=bool)
    exclude[1] = True
    found = more_like(VECTORS, CONCEPTS, 0, limit=limit, exclude=exclude)
    assert len(found) <= limit
    assert 1 not in {n.position for n in found}
