"""A server's personalization kept current vote by vote (pure, numpy only).

`core.profile.personalize` builds what votes change in a pick from scratch:
every reader's model, their sum over the corpus, the server's Rocchio term,
its net 👎, the near-duplicate index over every 👎'd paper, the stacked models
for pings. A server's picks (its digest, previews, every reader's personal
digest) ask for that far more often than its readers vote, so
`ProfileState` keeps those parts for one corpus version and changes only
what a vote changes: the voter's model is fitted again and swapped into the
stack and the sums, the per-paper vote counts move, a newly 👎'd paper joins
the near-duplicate index. Sums by term are kept by adding and taking away,
and a term no model or vote uses any more is set back to exactly 0 (each
term counts its users), so they differ from a rebuild only in the last bits
of terms still in use; per-paper sums (a paper's score under all models, the
server term) are gathered afresh from them, and vote counts are integers.

Arrays handed out in a `Personalization` are never changed afterwards (an
update makes new ones), so a pick running in a worker thread is not
disturbed by a vote arriving meanwhile.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paperbot.core.profile import (
    EXPLORE_EVERY,
    NEAR_DUPLICATE,
    SERVER_WEIGHT,
    Personalization,
    Reader,
)
from paperbot.core.profile_index import ModelStack, NearIndex
from paperbot.core.profile_model import (
    DISLIKE_FACTOR,
    FULL_CONFIDENCE_VOTES,
    PROFILE_WEIGHT,
    ReaderModel,
    reader_models,
)
from paperbot.core.similarity import PaperVectors

FloatArray = NDArray[np.float64]
Counts = NDArray[np.int64]
# A reader's votes: (liked positions, disliked positions), each sorted.
ReaderVotes = tuple[tuple[int, ...], tuple[int, ...]]
_NO_VOTES: ReaderVotes = ((), ())


def reader_votes(liked: Sequence[int], disliked: Sequence[int]) -> ReaderVotes:
    return tuple(sorted(liked)), tuple(sorted(disliked))


class _TermSums:
    """A sum of sparse term vectors kept by adding and taking away. A term
    that no vector in the sum uses any more is set back to exactly 0 (each
    term counts its vectors), so the sum differs from one made afresh only
    in the last bits of the terms still in use."""

    def __init__(self, vocabulary: int) -> None:
        self.values: FloatArray = np.zeros(vocabulary, dtype=np.float64)
        self._users: Counts = np.zeros(vocabulary, dtype=np.int64)

    def add(self, terms: NDArray[np.integer[Any]], weights: FloatArray, sign: int) -> None:
        np.add.at(self.values, terms, sign * weights)
        np.add.at(self._users, terms, sign)

    @property
    def nbytes(self) -> int:
        return int(self.values.nbytes + self._users.nbytes)

    def settle(self) -> None:
        self.values[self._users == 0] = 0.0


def _norm(vector: FloatArray) -> float:
    # Not np.linalg.norm: its BLAS call hands off to threads, which on a
    # busy machine costs more than the sum itself.
    return float(np.sqrt(np.einsum("i,i->", vector, vector)))


class ProfileState:
    """Every reader's votes and mutes in one server, and what they change in
    a pick, over one corpus version's paper vectors."""

    def __init__(self, vectors: PaperVectors) -> None:
        papers = len(vectors)
        self._vectors = vectors
        self._vocabulary = max(int(np.max(vectors.terms, initial=-1)) + 1, 1)
        self._votes: dict[int, ReaderVotes] = {}
        self._models: dict[int, ReaderModel] = {}
        self._muted: dict[int, frozenset[int]] = {}
        self._readers: dict[int, Reader] = {}
        self._liked_by: Counts = np.zeros(papers, dtype=np.int64)
        self._disliked_by: Counts = np.zeros(papers, dtype=np.int64)
        # By term: the readers' models summed, the liked and the disliked
        # papers' vectors summed (with a paper once per vote).
        self._model_sums = _TermSums(self._vocabulary)
        self._like_sums = _TermSums(self._vocabulary)
        self._dislike_sums = _TermSums(self._vocabulary)
        self._indexed = np.zeros(papers, dtype=bool)
        self._near = NearIndex(vectors, [], NEAR_DUPLICATE)
        self._stack = ModelStack([])
        self._discover: FloatArray = np.zeros(papers, dtype=np.float64)
        self._server: FloatArray = np.zeros(papers, dtype=np.float64)
        self._server_muted = np.zeros(papers, dtype=bool)
        self._nbytes = self._held()

    @classmethod
    def build(
        cls,
        vectors: PaperVectors,
        votes: Mapping[int, tuple[Sequence[int], Sequence[int]]],
        muted: Mapping[int, Collection[int]],
    ) -> ProfileState:
        """From every reader's (liked, disliked) positions and the mutes'
        positions by user (0: the server); the models are fitted together."""
        state = cls(vectors)
        state.set_mutes(muted)
        state.update(votes)
        return state

    @property
    def voters(self) -> int:
        return len(self._votes)

    @property
    def nbytes(self) -> int:
        """Roughly the memory this state holds (worked out once per update)."""
        return self._nbytes

    def _held(self) -> int:
        arrays = [self._liked_by, self._disliked_by, self._indexed, self._discover, self._server]
        models = sum(m.terms.nbytes + m.weights.nbytes for m in self._models.values())
        sums = sum(t.nbytes for t in (self._model_sums, self._like_sums, self._dislike_sums))
        held = sum(a.nbytes for a in arrays) + self._server_muted.nbytes + models + sums
        return int(held + self._stack.nbytes + self._near.nbytes)

    def votes_of(self, user: int) -> ReaderVotes:
        return self._votes.get(user, _NO_VOTES)

    def model_of(self, user: int) -> ReaderModel:
        return self._models.get(user, ReaderModel.none())

    def update(self, votes: Mapping[int, tuple[Sequence[int], Sequence[int]]]) -> int:
        """Set these readers' votes (both empty: they have none now). Only the
        readers whose votes differ are fitted again; how many that was."""
        changed: dict[int, ReaderVotes] = {}
        for user, (liked, disliked) in votes.items():
            now = reader_votes(liked, disliked)
            if now != self.votes_of(user):
                changed[user] = now
        if not changed:
            return 0
        models = reader_models(self._vectors, list(changed.values()))
        for (user, now), model in zip(changed.items(), models, strict=True):
            self._count(self.votes_of(user), -1)
            self._count(now, 1)
            old = self.model_of(user)
            self._model_sums.add(old.terms, old.weights, -1)
            self._model_sums.add(model.terms, model.weights, 1)
            if now[0] or now[1]:
                self._votes[user], self._models[user] = now, model
            else:
                self._votes.pop(user, None)
                self._models.pop(user, None)
            self._reader(user)
        self._stack = self._stack.replaced(
            {user: (self.model_of(user).terms, self.model_of(user).weights) for user in changed}
        )
        for sums in (self._model_sums, self._like_sums, self._dislike_sums):
            sums.settle()
        self._discover = self._gather(self._model_sums.values)
        self._server = self._server_scores()
        self._index_dislikes()
        self._nbytes = self._held()
        return len(changed)

    def set_mutes(self, muted: Mapping[int, Collection[int]]) -> None:
        """Every mute's positions by user (0: the server), replacing the last."""
        before = set(self._muted)
        self._muted = {user: frozenset(found) for user, found in muted.items()}
        server_muted = np.zeros(len(self._vectors), dtype=bool)
        server_muted[list(self._muted.get(0, ()))] = True
        self._server_muted = server_muted
        for user in before | set(self._muted):
            self._reader(user)

    def personalization(
        self,
        audience: Collection[int],
        *,
        reader: int | None = None,
        explore_every: int = EXPLORE_EVERY,
    ) -> Personalization:
        """What `core.profile.personalize` gives for these votes and mutes,
        from the kept parts: the server's pick (its readers' models, the
        server term for each subscriber who has not voted, net 👎 blocked), or
        with `reader` that reader's own (see `personalize`)."""
        blocked = self._server_muted.copy()
        if reader is not None:
            own = self._readers.get(reader, Reader(ReaderModel.none()))
            discover = self._gather(self._dense(own.model))
            boost = discover + SERVER_WEIGHT * self._server
            blocked[list(own.blocked)] = True
            disliked = np.array(sorted(own.disliked), dtype=np.intp)
        else:
            silent = sum(1 for user in audience if user not in self._votes)
            discover = self._discover
            boost = discover + (SERVER_WEIGHT * silent) * self._server
            disliked = np.flatnonzero(self._liked_by < self._disliked_by).astype(np.intp)
            blocked[disliked] = True
        return Personalization(
            boost,
            discover,
            blocked,
            disliked,
            dict(self._readers),
            explore_every,
            self._near,
            self._stack,
        )

    def _count(self, votes: ReaderVotes, sign: int) -> None:
        for positions, counts, sums in (
            (votes[0], self._liked_by, self._like_sums),
            (votes[1], self._disliked_by, self._dislike_sums),
        ):
            rows = np.asarray(positions, dtype=np.intp)
            np.add.at(counts, rows, sign)
            real = self._vectors.terms[rows] >= 0
            sums.add(self._vectors.terms[rows][real], self._vectors.weights[rows][real], sign)

    def _reader(self, user: int) -> None:
        """The user's `Reader` again from their votes and mutes (as `personalize`)."""
        liked, disliked = self.votes_of(user)
        muted = self._muted.get(user, frozenset())
        if liked or disliked:
            own = frozenset(disliked)
            self._readers[user] = Reader(self._models[user], own | muted, own)
        elif user in self._muted and user:
            self._readers[user] = Reader(ReaderModel.none(), muted)
        else:
            self._readers.pop(user, None)

    def _dense(self, model: ReaderModel) -> FloatArray:
        dense = np.zeros(self._vocabulary, dtype=np.float64)
        dense[model.terms] = model.weights
        return dense

    def _gather(self, dense: FloatArray) -> FloatArray:
        """Every paper's score under the term weights `dense`."""
        # np.take: several times faster than indexing with the term array;
        # padding (-1) is clipped to term 0, read with weight 0.
        picked = np.take(dense, self._vectors.terms, mode="clip")
        # Summed as `personalize` sums (not einsum): the same order of
        # additions, so papers that tie there tie here too.
        found: FloatArray = (self._vectors.weights * picked).sum(axis=1)
        return found

    def _server_scores(self) -> FloatArray:
        """The server's model (Rocchio over all its votes, scaled as a
        reader's) on every paper: what each silent subscriber adds."""
        votes = int(self._liked_by.sum() + self._disliked_by.sum())
        papers = len(self._vectors)
        if votes == 0:
            return np.zeros(papers, dtype=np.float64)
        liked, disliked = self._like_sums.values, self._dislike_sums.values
        dense = liked / max(_norm(liked), 1e-12)
        dense -= DISLIKE_FACTOR * disliked / max(_norm(disliked), 1e-12)
        scores = self._gather(dense)
        voted = (self._liked_by > 0) | (self._disliked_by > 0)
        peak = float(np.max(np.abs(scores[voted])))
        if peak <= 0:
            return np.zeros(papers, dtype=np.float64)
        confidence = min(1.0, votes / FULL_CONFIDENCE_VOTES)
        return scores * (PROFILE_WEIGHT * confidence / peak)

    def _index_dislikes(self) -> None:
        """Papers 👎'd for the first time join the near-duplicate index (one
        whose 👎 is taken back stays: a look-up is checked against 👎 anyway)."""
        new = np.flatnonzero((self._disliked_by > 0) & ~self._indexed)
        if len(new):
            self._near = self._near.extended(self._vectors, new.tolist())
            self._indexed[new] = True
