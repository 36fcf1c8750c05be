"""What a server asks of its digest: each subscribed topic with its
subscribers and matching papers (`TopicDemand`), mapped onto the corpus
arrays for picking (`PreparedDemand`); see `core.digest`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

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


@dataclass(frozen=True, slots=True)
class PreparedDemand:
    """Demands mapped onto corpus positions (sorted), ready for picking."""

    topics: tuple[str, ...]
    positions: tuple[NDArray[np.intp], ...]
    scores: tuple[FloatArray, ...]
    weights: FloatArray  # subscribers per topic
    user_ids: IntArray  # every subscriber, sorted
    members: NDArray[np.bool_]  # topics x users: who subscribed to what

    @classmethod
    def build(cls, corpus: CorpusArrays, demands: Sequence[TopicDemand]) -> PreparedDemand:
        demands = [d for d in demands if d.subscribers and len(d.ids)]
        users = np.array(sorted({u for d in demands for u in d.subscribers}), dtype=np.int64)
        members = np.zeros((len(demands), len(users)), dtype=bool)
        positions, scores = [], []
        for row, demand in enumerate(demands):
            members[row, np.searchsorted(users, np.array(demand.subscribers, dtype=np.int64))] = (
                True
            )
            ids = np.asarray(demand.ids, dtype=np.int64)
            values = np.clip(np.asarray(demand.scores, dtype=np.float64), 0.0, 1.0)
            order = np.argsort(ids, kind="stable")
            ids, values = ids[order], values[order]
            pos = np.searchsorted(corpus.ids, ids) if len(corpus) else np.zeros(0, np.intp)
            keep = (pos < len(corpus)) & (values > 0)
            keep[keep] &= corpus.ids[pos[keep]] == ids[keep]
            positions.append(pos[keep].astype(np.intp))
            scores.append(values[keep])
        return cls(
            topics=tuple(d.topic for d in demands),
            positions=tuple(positions),
            scores=tuple(scores),
            weights=members.sum(axis=1).astype(np.float64),
            user_ids=users,
            members=members,
        )
