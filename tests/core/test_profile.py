"""core.profile: reader models, personalization, pings, leanings (table-driven)."""

from __future__ import annotations

import numpy as np
import pytest

from paperbot.core.profile import (
    NEAR_DUPLICATE,
    PROFILE_WEIGHT,
    near_duplicates,
    personalize,
    profile_scores,
    reader_model,
    topic_leanings,
)
from paperbot.core.profile_index import ModelStack, NearIndex
from paperbot.core.similarity import PaperVectors

TEXTS = [
    "diffusion models image generation denoising",  # 0
    "diffusion models video generation denoising",  # 1
    "reinforcement learning from human feedback reward model",  # 2
    "reward model preference optimization human feedback",  # 3
    "graph neural networks message passing",  # 4
    "diffusion models image generation denoising",  # 5: a copy of 0
    "扩散模型 图像生成 去噪",  # 6
    "protein folding structure prediction",  # 7
]
VECTORS = PaperVectors.build(TEXTS)
ALL = np.arange(len(TEXTS), dtype=np.intp)


@pytest.mark.parametrize(
    ("liked", "disliked", "kind"),
    [
        ([], [], "none"),
        ([0], [], "rocchio"),
        ([0, 1], [2, 3], "rocchio"),
        ([0, 1, 5], [2, 3, 4], "logistic"),
    ],
)
def test_model_kind(liked: list[int], disliked: list[int], kind: str) -> None:
    assert reader_model(VECTORS, liked, disliked).kind == kind


@pytest.mark.parametrize(("liked", "disliked"), [([0], [2]), ([0, 1, 5], [2, 3, 4]), ([1], [3, 4])])
def test_model_prefers_papers_like_the_liked(liked: list[int], disliked: list[int]) -> None:
    model = reader_model(VECTORS, liked, disliked)
    scores = model.score(VECTORS, ALL)
    assert scores[0] > 0 > scores[3]
    # Scaled: at most the profile weight on the voted papers.
    assert np.abs(scores[liked + disliked]).max() <= PROFILE_WEIGHT + 1e-9


def test_confidence_grows_with_votes() -> None:
    one = reader_model(VECTORS, [0], []).score(VECTORS, ALL)[0]
    five = reader_model(VECTORS, [0, 1, 5, 6], [7]).score(VECTORS, ALL)[0]
    assert 0 < one < five


def test_profile_scores_are_ids_and_scores_best_first() -> None:
    ids = np.arange(100, 100 + len(TEXTS), dtype=np.int64)
    found, scores = profile_scores(ids, VECTORS, reader_model(VECTORS, [0], [2]))
    assert list(scores) == sorted(scores, reverse=True)
    assert found[0] in (100, 105)  # the liked paper or its copy
    assert 107 not in found  # shares no term: no opinion


def test_reader_mode_blocks_dislikes_and_mutes() -> None:
    votes = [(1, 0, 1), (1, 2, -1), (2, 4, -1)]
    personal = personalize(VECTORS, votes, {1: [7], 0: [6]}, {1, 2}, reader=1)
    assert set(np.flatnonzero(personal.blocked)) == {2, 6, 7}  # own 👎, own mute, server mute
    assert list(personal.disliked) == [2]
    assert personal.boost[1] > personal.boost[4]


def test_server_mode_blocks_net_dislikes_only() -> None:
    votes = [(1, 2, -1), (2, 2, 1), (3, 4, -1)]
    personal = personalize(VECTORS, votes, {}, {1, 2, 3})
    assert list(np.flatnonzero(personal.blocked)) == [4]


@pytest.mark.parametrize(
    ("every", "picks", "explores"),
    [(5, 0, False), (5, 4, True), (5, 9, True), (5, 5, False), (0, 4, False)],
)
def test_exploration_schedule(every: int, picks: int, explores: bool) -> None:
    personal = personalize(VECTORS, [(1, 0, 1)], {}, {1}, reader=1, explore_every=every)
    assert personal.explores(picks) is explores


def test_near_duplicates_of_a_dislike() -> None:
    personal = personalize(VECTORS, [(1, 0, -1)], {}, {1}, reader=1)
    assert personal.is_near_disliked(VECTORS, 5)  # a copy
    assert not personal.is_near_disliked(VECTORS, 1)  # related, not a copy


def test_pings_skip_muted_disliked_and_strongly_disliking_readers() -> None:
    votes = [(1, 0, -1), (1, 1, -1), (1, 5, -1), (2, 2, 1)]
    personal = personalize(VECTORS, votes, {3: [4]}, {1, 2, 3, 4})
    assert personal.pingable(VECTORS, 5, [1, 2, 4]) == (2, 4)  # 1 👎'd it
    assert personal.pingable(VECTORS, 4, [2, 3, 4]) == (2, 4)  # 3 muted it
    assert personal.pingable(VECTORS, 0, [1, 4]) == (4,)


def test_near_index_agrees_with_brute_force() -> None:
    index = NearIndex(VECTORS, [0, 2, 4], NEAR_DUPLICATE)
    for position in range(len(TEXTS)):
        brute = near_duplicates(VECTORS, np.array([position], dtype=np.intp), np.array([0, 2, 4]))
        assert bool(index.near(VECTORS, position)) == bool(brute[0])


def test_model_stack_agrees_with_each_model() -> None:
    models = [reader_model(VECTORS, [0], [2]), reader_model(VECTORS, [3], [])]
    stack = ModelStack([(m.terms, m.weights) for m in models])
    for position in range(len(TEXTS)):
        at = np.array([position], dtype=np.intp)
        expected = [m.score(VECTORS, at)[0] for m in models]
        assert np.allclose(stack.scores(VECTORS, position), expected)


@pytest.mark.parametrize(
    ("votes", "towards", "away"),
    [
        ({}, [], []),
        ({1: 1, 2: 1, 3: -1}, ["A"], ["B"]),
        ({3: -1, 4: -1}, [], ["B", "C"]),
    ],
)
def test_topic_leanings(votes: dict[int, int], towards: list[str], away: list[str]) -> None:
    topics = {"A": [1, 2], "B": [3, 4], "C": [4]}
    assert topic_leanings(votes, topics) == (towards, away)
