"""What a server asks of its digest: each subscribed topic with its
subscribers, matching and near-matching papers (`TopicDemand`), mapped onto
the corpus arrays for picking (`PreparedDemand`); see `core.digest`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from paperbot.core.digest_fill import on_corpus

if TYPE_CHECKING:
    from paperbot.core.digest import CorpusArrays

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class TopicDemand:
    """One subscribed topic of a server: who wants it, and what matches it."""

    topic: str
    subscribers: tuple[int, ...]
    ids: IntArray
    scores: FloatArray
    # Near matches (below the match threshold): fill before unrelated papers.
    near_ids: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    near_scores: FloatArray = field(default_factory=lambda: np.zeros(0, dtype=np.float64))


@dataclass(frozen=True, slots=True)
class PreparedDemand:
    """Demands mapped onto corpus positions (sorted), ready for picking."""

    topics: tuple[str, ...]
    positions: tuple[NDArray[np.intp], ...]
    scores: tuple[FloatArray, ...]
    weights: FloatArray  # subscribers per topic
    user_ids: IntArray  # every subscriber, sorted
    members: NDArray[np.bool_]  # topics x users: who subscribed to what
    near_positions: tuple[NDArray[np.intp], ...] = ()
    near_scores: tuple[FloatArray, ...] = ()

    @classmethod
    def build(cls, corpus: CorpusArrays, demands: Sequence[TopicDemand]) -> PreparedDemand:
        demands = [d for d in demands if d.subscribers and (len(d.ids) or len(d.near_ids))]
        users = np.array(sorted({u for d in demands for u in d.subscribers}), dtype=np.int64)
        members = np.zeros((len(demands), len(users)), dtype=bool)
        positions: list[NDArray[np.intp]] = []
        scores: list[FloatArray] = []
        near_positions: list[NDArray[np.intp]] = []
        near_scores: list[FloatArray] = []
        for row, demand in enumerate(demands):
            members[row, np.searchsorted(users, np.array(demand.subscribers, dtype=np.int64))] = (
                True
            )
            for target, (ids, values) in (
                ((positions, scores), (demand.ids, demand.scores)),
                ((near_positions, near_scores), (demand.near_ids, demand.near_scores)),
            ):
                pos, kept = on_corpus(corpus.ids, ids, values)
                target[0].append(pos)
                target[1].append(kept)
        return cls(
            topics=tuple(d.topic for d in demands),
            positions=tuple(positions),
            scores=tuple(scores),
            weights=members.sum(axis=1).astype(np.float64),
            user_ids=users,
            members=members,
            near_positions=tuple(near_positions),
            near_scores=tuple(near_scores),
        )
