"""core.digest.pick with a Personalization: blocked and near-duplicate papers
never picked (matches or fill), profile-only picks, exploration, pings."""

from __future__ import annotations

import numpy as np
import pytest

from paperbot.core.digest import CorpusArrays, PreparedDemand, TopicDemand, pick
from paperbot.core.profile import Personalization, personalize

TEXTS = {
    1: "diffusion models image generation denoising",
    2: "diffusion models image generation denoising",  # a copy of 1
    3: "diffusion transformers video generation",
    4: "reinforcement learning from human feedback reward",
    5: "reward model preference optimization feedback",
    6: "graph neural networks message passing",
    7: "protein folding structure prediction",
    8: "reward hacking in human feedback training",
}
ROWS = [(pid, "NeurIPS", 2023 + pid % 3) for pid in TEXTS]
CORPUS = CorpusArrays.build(ROWS, TEXTS)
USER, OTHER = 10, 11
# The reader follows "generation" (1, 2, 3 match) and "networks" (6).
DEMANDS = [
    TopicDemand("generation", (USER, OTHER), np.array([1, 2, 3]), np.array([0.9, 0.8, 0.7])),
    TopicDemand("networks", (USER,), np.array([6]), np.array([0.5])),
]


def personal(votes: list[tuple[int, int, int]], reader: int | None = USER) -> Personalization:
    positions = [(u, int(CORPUS.positions([pid])[0]), v) for u, pid, v in votes]
    return personalize(CORPUS.vectors, positions, {}, {USER, OTHER}, reader=reader)


def picked(count: int, steer: Personalization | None) -> list[int]:
    plan = pick(CORPUS, PreparedDemand.build(CORPUS, DEMANDS), [], count, steer)
    return [p.paper_id for p in plan.picks]


@pytest.mark.parametrize("count", [1, 3, 8])
def test_a_disliked_paper_and_its_copy_are_never_picked(count: int) -> None:
    steer = personal([(USER, 1, -1)])
    found = picked(count, steer)
    assert 1 not in found
    assert 2 not in found  # near-duplicate, even as fill


def test_without_votes_the_pick_is_unchanged() -> None:
    assert picked(4, personal([])) == picked(4, None)


def test_likes_bring_in_papers_outside_the_topics() -> None:
    steer = personal([(USER, 4, 1), (USER, 5, 1)])
    plan = pick(CORPUS, PreparedDemand.build(CORPUS, DEMANDS), [4, 5], 8, steer)
    liked = [p for p in plan.picks if p.paper_id == 8]
    assert liked
    assert liked[0].kind == "match"
    assert "👍" in liked[0].reason
    assert liked[0].profile > 0


def test_profile_moves_a_match_up() -> None:
    demands = [
        TopicDemand("generation", (USER,), np.array([1, 3]), np.array([0.6, 0.55])),
        TopicDemand("networks", (USER,), np.array([6]), np.array([0.5])),
    ]
    prepared = PreparedDemand.build(CORPUS, demands)
    before = pick(CORPUS, prepared, [], 3, None).picks
    steer = personal([(USER, 6, 1), (USER, 4, -1)])
    after = pick(CORPUS, prepared, [], 3, steer).picks
    assert before[0].paper_id == 1
    assert after[0].paper_id == 6
    assert after[0].profile > 0 == before[0].profile


def test_no_ping_for_a_pick_the_reader_disliked() -> None:
    steer = personal([(OTHER, 3, -1)], reader=None)
    demands = [TopicDemand("generation", (USER, OTHER), np.array([3]), np.array([0.9]))]
    plan = pick(CORPUS, PreparedDemand.build(CORPUS, demands), [], 1, steer)
    # Net 👎 of the server: not picked at all; fill instead, pinging nobody.
    assert all(p.paper_id != 3 for p in plan.picks)
    steer = personal([(OTHER, 3, -1), (USER, 3, 1), (10_000, 3, 1)], reader=None)
    plan = pick(CORPUS, PreparedDemand.build(CORPUS, demands), [], 1, steer)
    assert plan.picks[0].paper_id == 3
    assert plan.picks[0].subscribers == (USER,)
