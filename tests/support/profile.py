"""Two personalizations compared as a pick uses them: the kept one
(`ProfileState`, the service's copy) against `personalize` from scratch."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

import numpy as np
import pytest

from paperbot.core.digest import CorpusArrays, PreparedDemand, pick
from paperbot.core.profile import Personalization


def assert_same(
    corpus: CorpusArrays,
    demand: PreparedDemand,
    audience: Collection[int],
    ours: Personalization,
    theirs: Personalization,
) -> None:
    """Equal up to float rounding: scores, what is blocked, each reader, every
    near-duplicate and ping answer, and the picks (all of the corpus too)."""
    vectors = corpus.vectors
    assert np.allclose(ours.boost, theirs.boost, rtol=1e-9, atol=1e-12)
    assert np.allclose(ours.discover, theirs.discover, rtol=1e-9, atol=1e-12)
    assert np.array_equal(ours.blocked, theirs.blocked)
    assert np.array_equal(ours.disliked, theirs.disliked)
    assert set(ours.readers) == set(theirs.readers)
    for user, reader in theirs.readers.items():
        mine = ours.readers[user]
        assert (mine.blocked, mine.disliked) == (reader.blocked, reader.disliked)
        assert mine.model.kind == reader.model.kind
        assert np.array_equal(mine.model.terms, reader.model.terms)
        assert np.allclose(mine.model.weights, reader.model.weights, rtol=1e-9, atol=1e-12)
    everyone = sorted({*audience, *theirs.readers})
    for position in range(len(corpus)):
        near = (p.is_near_disliked(vectors, position) for p in (ours, theirs))
        assert len(set(near)) == 1
        pings = (p.pingable(vectors, position, everyone) for p in (ours, theirs))
        assert len(set(pings)) == 1
    for count in (3, len(corpus)):
        found, expected = (pick(corpus, demand, [], count, p).picks for p in (ours, theirs))
        assert [replace(p, profile=0.0) for p in found] == [
            replace(p, profile=0.0) for p in expected
        ]
        assert [p.profile for p in found] == pytest.approx([p.profile for p in expected])
