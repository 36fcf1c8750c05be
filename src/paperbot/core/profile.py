"""What readers' 👍/👎 votes and mutes change in the picks (pure, numpy only).

A paper is its TF-IDF vector (`core.similarity.PaperVectors`: folded Latin
words and CJK bigrams of title and summary, so one vector space serves
English and Chinese). A reader's taste is a linear model over those terms,
`ReaderModel` (sparse term weights, like a centroid), so that

* with few votes, or votes of one kind only, it is Rocchio: the centroid of
  the liked papers minus `DISLIKE_FACTOR` x the centroid of the disliked
  ones (measured in `recommendation-findings.md`: +30% precision after a
  few days of voting);
* with at least `LOGISTIC_MIN_EACH` votes of each kind, it is a per-reader
  L2-regularised logistic regression on the voted papers (unvoted papers are
  not negatives: that hurt early picks on a small corpus);
* either way it is scaled to at most `PROFILE_WEIGHT` x `min(1, votes /
  FULL_CONFIDENCE_VOTES)` on the reader's voted papers, so a reader with two
  votes moves the picks less than one with twenty.

Linear models add up: a server's digest ranks by topic relevance plus the
sum of its readers' models (one gather over the corpus, however many
readers), plus `SERVER_WEIGHT` x the server's own model (all its votes) for
each subscriber who has not voted yet. What a reader 👎'd, and papers whose
vector is within `NEAR_DUPLICATE` cosine of one, are never picked for them;
mutes remove whole topics. One pick in `EXPLORE_EVERY` ignores the profile
(topic relevance only) so the profile cannot collapse onto itself.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from paperbot.core.models import SubscriptionKind
from paperbot.core.profile_index import ModelStack, NearIndex
from paperbot.core.profile_model import (
    DISLIKE_FACTOR,
    FULL_CONFIDENCE_VOTES,
    LOGISTIC_L2,
    LOGISTIC_MIN_EACH,
    LOGISTIC_STEPS,
    PROFILE_WEIGHT,
    ReaderModel,
    logistic,
    reader_model,
    reader_models,
    rocchio,
)
from paperbot.core.similarity import PaperVectors

SERVER_WEIGHT = 0.3
NEAR_DUPLICATE = 0.9
EXPLORE_EVERY = 5
# A reader is not pinged for a pick their model scores below this.
NO_PING_BELOW = -0.25

FloatArray = NDArray[np.float64]
Positions = NDArray[np.intp]

# The model names live in `core.profile_model`; callers import them from here.
__all__ = [
    "DISLIKE_FACTOR",
    "EXPLORE_EVERY",
    "FULL_CONFIDENCE_VOTES",
    "LOGISTIC_L2",
    "LOGISTIC_MIN_EACH",
    "LOGISTIC_STEPS",
    "NEAR_DUPLICATE",
    "NO_PING_BELOW",
    "PROFILE_WEIGHT",
    "SERVER_WEIGHT",
    "ModelKey",
    "Mute",
    "Personalization",
    "Reader",
    "ReaderModel",
    "Vote",
    "cached_model",
    "cached_models",
    "logistic",
    "near_duplicates",
    "personalize",
    "profile_scores",
    "reader_model",
    "reader_models",
    "rocchio",
    "topic_leanings",
    "votes_by_position",
    "votes_by_reader",
]


@dataclass(frozen=True, slots=True)
class Vote:
    user_id: int
    paper_id: int
    value: int  # +1 👍, -1 👎


@dataclass(frozen=True, slots=True)
class Mute:
    user_id: int  # 0: the whole server
    kind: SubscriptionKind
    topic: str
    label: str


def profile_scores(
    ids: NDArray[np.int64], vectors: PaperVectors, model: ReaderModel
) -> tuple[NDArray[np.int64], FloatArray]:
    """Every paper the model has an opinion on as `(ids, scores)`, best first
    (the shape arxiv-sanity-lite's recommenders return)."""
    scores = model.score(vectors, np.arange(len(ids), dtype=np.intp))
    found = np.flatnonzero(scores != 0)
    order = found[np.lexsort((ids[found], -scores[found]))]
    return ids[order], scores[order]


def near_duplicates(
    vectors: PaperVectors, candidates: Positions, disliked: Positions
) -> NDArray[np.bool_]:
    """Which candidates are within `NEAR_DUPLICATE` cosine of a disliked paper."""
    found = np.zeros(len(candidates), dtype=bool)
    if len(disliked) == 0:
        return found
    for index, position in enumerate(candidates):
        found[index] = np.max(vectors.similarity(disliked, [int(position)])) > NEAR_DUPLICATE
    return found


@dataclass(frozen=True, slots=True)
class Reader:
    """One reader's part in a pick: their model and what they never want."""

    model: ReaderModel
    blocked: frozenset[int] = frozenset()  # positions: 👎'd or muted
    disliked: frozenset[int] = frozenset()  # positions 👎'd


@dataclass(frozen=True, slots=True)
class Personalization:
    """What the profile changes in one pick (all per corpus position)."""

    boost: FloatArray  # added to topic relevance
    # The readers' own models (no server term): what may bring in a paper
    # no subscribed topic matches.
    discover: FloatArray
    blocked: NDArray[np.bool_]  # never picked
    disliked: Positions  # never picked either: their near-duplicates
    readers: Mapping[int, Reader]  # who is not pinged for what
    explore_every: int = EXPLORE_EVERY  # 0: never explore
    # Every reader's 👎 by term (a superset does no harm: a look-up is always
    # checked against a set of 👎), and their models stacked by user.
    near_index: NearIndex | None = None
    stack: ModelStack | None = None

    def explores(self, picks_so_far: int) -> bool:
        """Whether the next pick ignores the profile (the k-th, 2k-th, ...)."""
        return self.explore_every > 0 and (picks_so_far + 1) % self.explore_every == 0

    def is_near_disliked(self, vectors: PaperVectors, position: int) -> bool:
        if len(self.disliked) == 0:
            return False
        if self.near_index is None:
            at = np.array([position], dtype=np.intp)
            return bool(near_duplicates(vectors, at, self.disliked)[0])
        near = self.near_index.near(vectors, position)
        return bool(near) and bool(np.isin(self.disliked, list(near)).any())

    def pingable(
        self, vectors: PaperVectors, position: int, users: Iterable[int]
    ) -> tuple[int, ...]:
        """The users who may be pinged for this pick: not muted or 👎'd, and
        not strongly disliked by their model."""
        kept = []
        near = (
            self.near_index.near(vectors, position)
            if self.near_index is not None
            else frozenset[int]()
        )
        scores = self.stack.scores(vectors, position) if self.stack is not None else None
        at = np.array([position], dtype=np.intp)
        for user in users:
            reader = self.readers.get(user)
            if reader is None:
                kept.append(user)
                continue
            score = (
                self.stack.score_of(scores, user)
                if self.stack is not None and scores is not None
                else float(reader.model.score(vectors, at)[0])
            )
            if position in reader.blocked or not near.isdisjoint(reader.disliked):
                continue
            if score >= NO_PING_BELOW:
                kept.append(user)
        return tuple(kept)


ModelKey = tuple[tuple[int, ...], tuple[int, ...], bool]


def cached_model(
    vectors: PaperVectors,
    liked: Sequence[int],
    disliked: Sequence[int],
    cache: MutableMapping[ModelKey, ReaderModel],
    *,
    learn: bool = True,
) -> ReaderModel:
    """`reader_model`, remembered by the (sorted) votes it was fitted on."""
    return cached_models(vectors, [(liked, disliked)], cache, learn=learn)[0]


def cached_models(
    vectors: PaperVectors,
    pairs: Sequence[tuple[Sequence[int], Sequence[int]]],
    cache: MutableMapping[ModelKey, ReaderModel],
    *,
    learn: bool = True,
) -> list[ReaderModel]:
    """`reader_models` for each (liked, disliked), the ones not remembered
    yet fitted together."""
    keys = [(tuple(sorted(liked)), tuple(sorted(disliked)), learn) for liked, disliked in pairs]
    missing = list(dict.fromkeys(key for key in keys if key not in cache))
    fitted = reader_models(vectors, [(key[0], key[1]) for key in missing], learn=learn)
    cache.update(zip(missing, fitted, strict=True))
    return [cache[key] for key in keys]


def votes_by_reader(
    votes: Iterable[tuple[int, int, int]],
) -> dict[int, tuple[list[int], list[int]]]:
    """(user, position, value) -> per user (liked positions, disliked positions)."""
    found: dict[int, tuple[list[int], list[int]]] = {}
    for user, position, value in votes:
        liked, disliked = found.setdefault(user, ([], []))
        (liked if value > 0 else disliked).append(position)
    return found


def _linear_sum(vectors: PaperVectors, models: Iterable[tuple[ReaderModel, float]]) -> FloatArray:
    """Σ factor x model(x) for every paper, as one gather over the corpus."""
    size = int(np.max(vectors.terms)) + 1 if vectors.terms.size else 0
    dense = np.zeros(max(size, 1), dtype=np.float64)
    for model, factor in models:
        if len(model.terms):
            np.add.at(dense, model.terms, model.weights * factor)
    terms = vectors.terms
    summed: FloatArray = np.where(terms >= 0, vectors.weights * dense[terms.clip(0)], 0.0).sum(
        axis=1
    )
    return summed


def personalize(
    vectors: PaperVectors,
    votes: Iterable[tuple[int, int, int]],
    muted: Mapping[int, Collection[int]],
    audience: Collection[int],
    *,
    reader: int | None = None,
    explore_every: int = EXPLORE_EVERY,
    models: MutableMapping[ModelKey, ReaderModel] | None = None,
) -> Personalization:
    """The personalization of one pick.

    `votes` are (user, position, value) of the server; `muted` maps a user
    (0: the server) to the positions their mutes match; `audience` are the
    subscribers the pick is for. With `reader` the pick is that reader's
    own: their model plus the server term, their 👎 and mutes blocked.
    Without, it is the server's: every voter's model plus the server term
    for subscribers who have not voted, papers the server voted net 👎 and
    server mutes blocked (readers' own 👎 and mutes only stop their pings).
    `models` caches readers' models by their votes (fitting one is
    milliseconds; a server has many readers whose votes rarely change).
    """
    by_reader = votes_by_reader(votes)
    cache: MutableMapping[ModelKey, ReaderModel] = {} if models is None else models
    fitted = cached_models(vectors, list(by_reader.values()), cache)
    readers = {
        user: Reader(
            model,
            frozenset(disliked) | frozenset(muted.get(user, ())),
            frozenset(disliked),
        )
        for (user, (_, disliked)), model in zip(by_reader.items(), fitted, strict=True)
    }
    for user, positions in muted.items():
        if user and user not in readers:
            readers[user] = Reader(ReaderModel.none(), frozenset(positions))
    all_liked = [p for liked, _ in by_reader.values() for p in liked]
    all_disliked = [p for _, disliked in by_reader.values() for p in disliked]
    server = cached_model(vectors, all_liked, all_disliked, cache, learn=False)
    blocked = np.zeros(len(vectors), dtype=bool)
    blocked[list(muted.get(0, ()))] = True
    if reader is not None:
        own = readers.get(reader, Reader(ReaderModel.none()))
        discover = _linear_sum(vectors, [(own.model, 1.0)])
        boost = discover + _linear_sum(vectors, [(server, SERVER_WEIGHT)])
        blocked[list(own.blocked)] = True
        disliked = np.array(sorted(own.disliked), dtype=np.intp)
    else:
        silent = sum(1 for user in audience if user not in by_reader)
        discover = _linear_sum(vectors, [(r.model, 1.0) for r in readers.values()])
        boost = discover + _linear_sum(vectors, [(server, SERVER_WEIGHT * silent)])
        disliked = _net_disliked(votes_by_position(by_reader))
        blocked[disliked] = True
    index = NearIndex(vectors, all_disliked, NEAR_DUPLICATE)
    stack = ModelStack([(r.model.terms, r.model.weights) for r in readers.values()], list(readers))
    return Personalization(boost, discover, blocked, disliked, readers, explore_every, index, stack)


def votes_by_position(by_reader: Mapping[int, tuple[list[int], list[int]]]) -> dict[int, int]:
    """Net vote per voted position."""
    net: dict[int, int] = {}
    for liked, disliked in by_reader.values():
        for position in liked:
            net[position] = net.get(position, 0) + 1
        for position in disliked:
            net[position] = net.get(position, 0) - 1
    return net


def _net_disliked(net: Mapping[int, int]) -> Positions:
    return np.array(sorted(p for p, value in net.items() if value < 0), dtype=np.intp)


def topic_leanings(
    votes: Mapping[int, int], topics: Mapping[str, Collection[int]], limit: int = 5
) -> tuple[list[str], list[str]]:
    """The topics a reader's votes lean towards and away from, strongest first:
    each topic scores the sum of the votes (paper id -> +1/-1) on papers it matches."""
    net = {name: sum(votes.get(p, 0) for p in ids) for name, ids in topics.items()}
    ranked = sorted(net.items(), key=lambda item: (-abs(item[1]), item[0]))
    towards = [name for name, value in ranked if value > 0][:limit]
    away = [name for name, value in ranked if value < 0][:limit]
    return towards, away
