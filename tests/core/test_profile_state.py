"""core.profile_state: the personalization kept vote by vote is the one
`personalize` builds from scratch, after every vote, unvote, mute and a
corpus change (server picks and each reader's own)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from paperbot.core.digest import CorpusArrays, PreparedDemand, TopicDemand
from paperbot.core.profile import personalize
from paperbot.core.profile_state import ProfileState
from tests.support.profile import WORDS, assert_same

USERS = (1, 2, 3, 4, 5)
AUDIENCE = {*USERS, 6, 7}


def texts(count: int, seed: int) -> dict[int, str]:
    rng = random.Random(seed)
    found = {pid: " ".join(rng.sample(WORDS, 5)) for pid in range(1, count + 1)}
    found[count + 1] = found[1]  # a copy: a near-duplicate of paper 1
    return found


def corpus_of(found: dict[int, str]) -> CorpusArrays:
    return CorpusArrays.build([(pid, "ICML", 2020 + pid % 5) for pid in found], found)


def demands(corpus: CorpusArrays) -> PreparedDemand:
    ids = corpus.ids
    wanted = [
        TopicDemand("a", (1, 2, 6), ids[::3], np.linspace(0.9, 0.4, len(ids[::3]))),
        TopicDemand("b", (3, 4, 7), ids[1::4], np.linspace(0.8, 0.3, len(ids[1::4]))),
    ]
    return PreparedDemand.build(corpus, wanted)


class Server:
    """The votes and mutes as the database holds them (a vote again undoes it)."""

    def __init__(self) -> None:
        self.votes: dict[int, dict[int, int]] = {}
        self.muted: dict[int, set[int]] = {}

    def vote(self, user: int, position: int, value: int) -> None:
        own = self.votes.setdefault(user, {})
        if own.get(position) == value:
            del own[position]
        else:
            own[position] = value

    def split(self, user: int) -> tuple[list[int], list[int]]:
        own = self.votes.get(user, {})
        return [p for p, v in own.items() if v > 0], [p for p, v in own.items() if v < 0]

    def rows(self) -> list[tuple[int, int, int]]:
        return [(u, p, v) for u, own in self.votes.items() for p, v in own.items()]

    def check(self, corpus: CorpusArrays, state: ProfileState) -> None:
        rows = self.rows()
        fresh = ProfileState.build(
            corpus.vectors, {u: self.split(u) for u in self.votes}, self.muted
        )
        for reader in (None, *USERS, 99):
            theirs = personalize(corpus.vectors, rows, self.muted, AUDIENCE, reader=reader)
            assert_same(
                corpus,
                demands(corpus),
                AUDIENCE,
                state.personalization(AUDIENCE, reader=reader),
                theirs,
            )
            assert_same(
                corpus,
                demands(corpus),
                AUDIENCE,
                fresh.personalization(AUDIENCE, reader=reader),
                theirs,
            )


# (user, paper position, value): enough of each kind for logistic models,
# then unvotes (down to no votes at all for reader 3) and replacements.
STEPS = [
    [(1, 0, 1)],
    [(1, 3, -1), (2, 3, 1), (3, 3, -1)],  # paper 3: net 👎
    [(1, p, 1) for p in (4, 8, 12)] + [(1, p, -1) for p in (5, 9)],  # 1: logistic
    [(2, 3, 1)],  # unvote: paper 3 stays net 👎
    [(3, 3, -1)],  # unvote: reader 3 has no votes left
    [(1, 5, 1)],  # replace a 👎 by a 👍
    [(4, 0, -1), (5, 0, -1), (2, 0, -1)],  # paper 0 and its copy: net 👎
    [(4, 0, -1)],
]


@pytest.mark.parametrize("seed", [3, 8])
def test_votes_mutes_and_unvotes_keep_the_state_equal_to_a_rebuild(seed: int) -> None:
    corpus = corpus_of(texts(40, seed))
    state, server = ProfileState(corpus.vectors), Server()
    server.check(corpus, state)
    for index, step in enumerate(STEPS):
        for user, position, value in step:
            server.vote(user, position, value)
        state.update({user: server.split(user) for user, _, _ in step})
        if index == 3:
            server.muted = {2: {6, 7}, 0: {10}}
            state.set_mutes(server.muted)
        if index == 6:
            server.muted = {0: {10, 11}, 5: set()}  # 2 unmuted; 5 mutes nothing loaded
            state.set_mutes(server.muted)
        server.check(corpus, state)


@pytest.mark.parametrize("seed", [1, 2])
def test_random_votes_then_a_corpus_change(seed: int) -> None:
    rng = random.Random(seed)
    found = texts(30, seed)
    corpus = corpus_of(found)
    state, server = ProfileState(corpus.vectors), Server()
    for _ in range(60):
        user = rng.choice(USERS)
        server.vote(user, rng.randrange(len(corpus)), rng.choice((1, -1)))
        state.update({user: server.split(user)})
    server.check(corpus, state)
    # A corpus change: papers added before the old ones shift every position.
    grown = corpus_of({pid + 5: text for pid, text in found.items()} | texts(5, seed + 1))
    moved = Server()
    for user, own in server.votes.items():
        for position, value in own.items():
            at = grown.positions([int(corpus.ids[position]) + 5])
            moved.vote(user, int(at[0]), value)
    rebuilt = ProfileState.build(grown.vectors, {u: moved.split(u) for u in moved.votes}, {})
    moved.check(grown, rebuilt)


def test_an_update_that_changes_nothing_fits_nothing() -> None:
    corpus = corpus_of(texts(20, 5))
    state = ProfileState.build(corpus.vectors, {1: ([0, 2], [3])}, {})
    assert state.update({1: ([2, 0], [3]), 2: ([], [])}) == 0
    assert state.update({1: ([2], [3])}) == 1
    assert state.votes_of(1) == ((2,), (3,))
