"""Two personalizations compared as a pick uses them: the kept one
(`ProfileState`, the service's copy) against `personalize` from scratch."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

import numpy as np
import pytest

from paperbot.core.digest import CorpusArrays, Pick, PreparedDemand, pick
from paperbot.core.profile import Personalization

WORDS = [
    "diffusion",
    "transformer",
    "reward",
    "policy",
    "graph",
    "protein",
    "language",
    "scaling",
    "sparse",
    "expert",
    "retrieval",
    "agent",
    "video",
    "speech",
    "kernel",
    "attention",
    "扩散",
    "模型",
    "强化",
    "学习",
    "图像",
    "生成",
    "quantization",
    "pruning",
]
"""Words of the synthetic papers the profile tests vote on (both languages)."""


def assert_same(
    corpus: CorpusArrays,
    demand: PreparedDemand,
    audience: Collection[int],
    ours: Personalization,
    theirs: Personalization,
) -> None:
    """Equal up to float rounding: scores, what is blocked, each reader, every
    near-duplicate and ping answer, and the picks (all of the corpus too, up
    to a tie: `assert_same_picks`)."""
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
        assert_same_picks(found, expected)


def assert_same_picks(found: Sequence[Pick], expected: Sequence[Pick]) -> None:
    """The same picks in the same order, up to a tie: two papers whose scores
    are equal in exact arithmetic may come out a last bit apart in one sum
    and equal in the other, so the lower position wins in one and not the
    other. At the first such place the two papers must tie (same relevance and
    profile up to rounding); the picks after it may differ."""
    for mine, theirs in zip(found, expected, strict=True):
        assert mine.profile == pytest.approx(theirs.profile, rel=1e-9, abs=1e-12)
        if replace(mine, profile=0.0) != replace(theirs, profile=0.0):
            assert mine.kind == theirs.kind
            assert mine.relevance == pytest.approx(theirs.relevance)
            return
