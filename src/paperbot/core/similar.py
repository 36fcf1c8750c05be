""" "More like this": the papers nearest one paper (pure, numpy only).

Two signals, both bilingual: the cosine of the papers' TF-IDF vectors
(`core.similarity`: English words and Chinese bigrams of title and summary)
and the vocabulary topics both papers match (each topic has English and
Chinese names and aliases, so a paper that only says 混合专家 shares the
"Mixture of experts" topic with one whose title says MoE). The shared
topics are also the reason shown to the reader.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from paperbot.core.similarity import PaperVectors

CONCEPT_WEIGHT = 0.2
"""Weight of the topic overlap (Jaccard, in [0, 1]) beside the cosine."""
SIMILAR_LIMIT = 5


@dataclass(frozen=True, slots=True)
class Neighbour:
    position: int
    score: float
    cosine: float
    shared: tuple[int, ...]  # topic columns both papers match


def more_like(
    vectors: PaperVectors,
    concepts: NDArray[np.bool_],
    position: int,
    limit: int = SIMILAR_LIMIT,
    exclude: NDArray[np.bool_] | None = None,
) -> list[Neighbour]:
    """The `limit` papers most like the one at `position`, best first (lower
    position on ties). `concepts` is papers x topics (which topics each
    paper matches); `exclude` marks papers never to return."""
    count = len(vectors)
    if count <= 1 or limit < 1:
        return []
    cosine = vectors.similarity(np.arange(count, dtype=np.intp), [position])[:, 0]
    mine = concepts[position]
    shared_counts = (concepts & mine).sum(axis=1)
    union = (concepts | mine).sum(axis=1)
    overlap = np.divide(shared_counts, union, out=np.zeros(count), where=union > 0)
    score = cosine + CONCEPT_WEIGHT * overlap
    score[position] = -np.inf
    if exclude is not None:
        score[exclude] = -np.inf
    alive = np.flatnonzero(np.isfinite(score) & (score > 0))
    order = alive[np.lexsort((alive, -score[alive]))][:limit]
    return [
        Neighbour(
            int(p),
            float(score[p]),
            float(cosine[p]),
            tuple(int(c) for c in np.flatnonzero(concepts[p] & mine)),
        )
        for p in order
    ]


def concept_matrix(paper_count: int, topic_positions: list[NDArray[np.intp]]) -> NDArray[np.bool_]:
    """Papers x topics from each topic's matching positions."""
    matrix = np.zeros((paper_count, len(topic_positions)), dtype=bool)
    for column, positions in enumerate(topic_positions):
        matrix[positions, column] = True
    return matrix
