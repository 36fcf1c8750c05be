"""Picking a server's daily papers (rendering the post: `core.digest_render`).

Picking works on arrays. The corpus becomes `CorpusArrays` (sorted ids,
years, venue codes, a precomputed fill order, TF-IDF paper vectors) once per
corpus version, and each subscribed topic arrives as `TopicDemand`: the
topic's subscribers and its matching papers as `(ids, scores)`. Synonymous
subscriptions are merged into one demand per topic before they get here
(services resolve them to topic ids).

Relevance: the sum, over the subscribed topics a paper matches, of the match
score (clipped to [0, 1]) times the topic's subscribers times the topic's
balance factor, times the paper's venue factor. A topic's balance factor is
`TOPIC_DECAY` to the power of the picks it already has, so one topic cannot
crowd out the other subscribed topics; nothing is capped, and a reader with
one topic is unaffected (all candidates shrink alike). Each earlier pick
from a venue multiplies its papers by `VENUE_DECAY` (a soft venue mix).

Diversity: maximal marginal relevance. Each next pick maximises
`MMR_LAMBDA` x relevance / (best relevance left) - (1 - `MMR_LAMBDA`) x its
largest similarity to the picks so far (cosine of TF-IDF vectors, see
`core.similarity`), so a near-duplicate of a pick waits. While any matching
unposted paper remains, the next slot goes to a match; then near matches
(`core.digest_fill`), then the newest papers (newest year first, venues dealt
in turns) fill the count, both marked `kind="fill"`.

Speed: a candidate's MMR score is at most `MMR_LAMBDA` x its relative
relevance, so each pick scores exactly only the best few candidates by
relevance, widening the pool until the best exact score beats every bound
outside it (the result equals scoring every candidate).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from paperbot.core.digest_demand import PreparedDemand as PreparedDemand
from paperbot.core.digest_demand import TopicDemand as TopicDemand
from paperbot.core.digest_fill import fill_reason as fill_reason
from paperbot.core.digest_fill import liked_reason, near_order, near_reason
from paperbot.core.digest_fill import match_reason as match_reason
from paperbot.core.profile import Personalization
from paperbot.core.similarity import PaperVectors, rank_in_group

TOPIC_DECAY = 0.5
VENUE_DECAY = 0.7
MMR_LAMBDA = 0.7
# A paper no subscribed topic matches is a candidate when the readers'
# profiles score it above this (the votes found something the topics miss).
PROFILE_FLOOR = 0.02
_INITIAL_POOL = 32  # candidates scored exactly per pick before looking further
_POOL_GROWTH = 4

PickKind = Literal["match", "fill"]
IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class CorpusArrays:
    """The corpus as parallel arrays, sorted by paper id."""

    ids: IntArray
    years: NDArray[np.int32]
    venue_codes: NDArray[np.int32]
    venue_names: tuple[str, ...]
    # Positions by newest year, then venue, then id.
    fill_order: NDArray[np.intp]
    vectors: PaperVectors

    @classmethod
    def build(
        cls, rows: Iterable[tuple[int, str, int]], texts: Mapping[int, str] | None = None
    ) -> CorpusArrays:
        """From `(id, venue, year)` rows in any order, and each paper's text
        (title and summary) for similarity; without texts no two papers are
        similar."""
        listed = sorted(rows)
        names = tuple(sorted({venue for _, venue, _ in listed}))
        code = {name: i for i, name in enumerate(names)}
        ids = np.array([r[0] for r in listed], dtype=np.int64)
        years = np.array([r[2] for r in listed], dtype=np.int32)
        venues = np.array([code[r[1]] for r in listed], dtype=np.int32)
        vectors = (
            PaperVectors.build([texts.get(int(i), "") for i in ids])
            if texts is not None
            else PaperVectors.empty(len(ids))
        )
        return cls(ids, years, venues, names, _fill_order(ids, years, venues), vectors)

    def __len__(self) -> int:
        return len(self.ids)

    def positions(self, ids: Sequence[int] | IntArray) -> NDArray[np.intp]:
        """Positions of the ids that are in the corpus (others are dropped)."""
        wanted = np.asarray(ids, dtype=np.int64)
        if len(self.ids) == 0 or len(wanted) == 0:
            return np.zeros(0, dtype=np.intp)
        pos = np.searchsorted(self.ids, wanted).astype(np.intp)
        pos[pos >= len(self.ids)] = 0
        found: NDArray[np.intp] = pos[self.ids[pos] == wanted]
        return found


def _fill_order(
    ids: IntArray, years: NDArray[np.int32], venues: NDArray[np.int32]
) -> NDArray[np.intp]:
    """Positions by newest year, then venue, then id (dealt in turns at fill time)."""
    order: NDArray[np.intp] = np.lexsort((ids, venues, -years))  # Any before numpy 2.4
    return order


@dataclass(frozen=True, slots=True)
class Pick:
    """A chosen paper and why it was chosen: a topic match, or a fill paper
    used only because no matching paper was left."""

    paper_id: int
    reason: str
    topics: tuple[str, ...] = ()
    subscribers: tuple[int, ...] = ()
    relevance: float = 0.0
    kind: PickKind = "match"
    # What the readers' votes added to `relevance` (see `core.profile`).
    profile: float = 0.0


@dataclass(frozen=True, slots=True)
class DigestPlan:
    picks: tuple[Pick, ...]
    requested: int
    # Unposted papers left in the channel's corpus after these picks.
    remaining: int
    # Papers loaded (None: not known to whoever built the plan).
    corpus_size: int | None = None

    @property
    def nothing_left(self) -> bool:
        return not self.picks


@dataclass(slots=True)
class _Selection:
    topic_picks: list[int]
    venue_picks: list[int]
    picks: list[Pick] = field(default_factory=list)
    taken: list[int] = field(default_factory=list)


def pick(
    corpus: CorpusArrays,
    demand: PreparedDemand,
    posted_ids: Sequence[int] | IntArray,
    count: int,
    personal: Personalization | None = None,
) -> DigestPlan:
    """Up to `count` papers never posted in the channel, best for its subscribers
    (steered by their votes and mutes when `personal` is given)."""
    if count < 1:
        raise ValueError("count must be at least 1")
    excluded = np.zeros(len(corpus), dtype=bool)
    excluded[corpus.positions(posted_ids)] = True
    unposted = int(len(corpus) - excluded.sum())
    base = relevance(corpus, demand)
    base[excluded] = 0.0
    boost = None if personal is None else personal.boost
    candidate = base > 0
    if personal is not None:
        # Blocked, or disliked more than its topics want it: out. A paper the
        # readers' votes point to strongly enough is in, matching or not.
        candidate = (candidate & (base + personal.boost > 0)) | (personal.discover > PROFILE_FLOOR)
        candidate[personal.blocked | excluded] = False
    matched = np.flatnonzero(candidate)
    alive = np.ones(len(matched), dtype=bool)
    chosen = _Selection([0] * len(demand.topics), [0] * len(corpus.venue_names))
    while len(chosen.picks) < count and alive.any():
        explore = personal is not None and personal.explores(len(chosen.picks))
        local = _next_match(corpus, demand, matched, alive, chosen, None if explore else boost)
        alive[local] = False
        position = int(matched[local])
        if personal is not None and personal.is_near_disliked(corpus.vectors, position):
            continue
        moved = (float(base[position]), float(boost[position]) if boost is not None else 0.0)
        _take(corpus, demand, position, moved, chosen, personal)
    blocked = excluded if personal is None else excluded | personal.blocked
    _near_fill(corpus, demand, blocked, count, chosen, personal)
    _fill(corpus, blocked, count, chosen, len(demand.user_ids), personal)
    return DigestPlan(tuple(chosen.picks), count, unposted - len(chosen.picks), len(corpus))


def relevance(corpus: CorpusArrays, demand: PreparedDemand) -> FloatArray:
    """Per paper: the sum over subscribed topics of match score x subscribers.

    Every (subscriber, topic) match counts: a paper matching two of one
    person's topics serves them better than a paper matching one.
    """
    return _weighted_relevance(corpus, demand, [float(w) for w in demand.weights])


def _weighted_relevance(
    corpus: CorpusArrays, demand: PreparedDemand, factors: Sequence[float]
) -> FloatArray:
    """Per paper: the sum, in topic order, of match score x the topic's factor."""
    total = np.zeros(len(corpus), dtype=np.float64)
    for pos, scores, factor in zip(demand.positions, demand.scores, factors, strict=True):
        total[pos] += scores * factor
    return total


def effective_relevance(
    corpus: CorpusArrays,
    demand: PreparedDemand,
    topic_picks: Sequence[int],
    venue_picks: Sequence[int],
    boost: FloatArray | None = None,
) -> FloatArray:
    """Relevance with each topic's balance factor and each venue's mix factor
    for the picks made so far (plus the profile's `boost`, kept positive)."""
    factors = [
        float(weight) * TOPIC_DECAY**n
        for weight, n in zip(demand.weights, topic_picks, strict=True)
    ]
    venue = np.array([VENUE_DECAY**n for n in venue_picks], dtype=np.float64)
    weighted = _weighted_relevance(corpus, demand, factors)
    if boost is not None:
        weighted = np.maximum(weighted + boost, 1e-9)
    result: FloatArray = weighted * venue[corpus.venue_codes]
    return result


def _next_match(
    corpus: CorpusArrays,
    demand: PreparedDemand,
    matched: NDArray[np.intp],
    alive: NDArray[np.bool_],
    chosen: _Selection,
    boost: FloatArray | None = None,
) -> int:
    """The index into `matched` of the next pick: the best MMR score, lowest id on ties."""
    full = effective_relevance(corpus, demand, chosen.topic_picks, chosen.venue_picks, boost)
    effective = np.where(alive, full[matched], -1.0)
    best = max(float(effective.max()), 1e-12)  # 0: only profile picks left, explored
    live = int(alive.sum())
    size = _INITIAL_POOL
    while True:
        ranked = _best_first(effective, matched, min(size + 1, live))
        pool = ranked[:size]
        similar = max_similarity(corpus, matched[pool], chosen.taken)
        scores = MMR_LAMBDA * effective[pool] / best - (1.0 - MMR_LAMBDA) * similar
        winner = int(pool[np.lexsort((matched[pool], -scores))[0]])
        if len(ranked) <= size:
            return winner
        bound = MMR_LAMBDA * effective[ranked[size]] / best
        if scores[pool == winner][0] > bound:
            return winner
        size *= _POOL_GROWTH


def _best_first(effective: FloatArray, matched: NDArray[np.intp], k: int) -> NDArray[np.intp]:
    """Indices of the k largest values, largest first, lower position on ties."""
    if k < len(effective):
        top = np.argpartition(-effective, k - 1)[:k]
    else:
        top = np.arange(len(effective))
    ordered: NDArray[np.intp] = top[np.lexsort((matched[top], -effective[top]))][:k]
    return ordered


def max_similarity(
    corpus: CorpusArrays, positions: NDArray[np.intp], taken: Sequence[int]
) -> FloatArray:
    """Each position's largest similarity to a paper already picked (0 for none)."""
    if not taken:
        return np.zeros(len(positions), dtype=np.float64)
    found: FloatArray = corpus.vectors.similarity(positions, taken).max(axis=1)
    return found


def matching_topics(demand: PreparedDemand, positions: NDArray[np.intp]) -> list[list[int]]:
    """For each position, its matching topic rows, largest contribution first."""
    matrix = np.zeros((len(positions), len(demand.topics)), dtype=np.float64)
    for row, (pos, scores) in enumerate(zip(demand.positions, demand.scores, strict=True)):
        if len(pos) == 0 or len(positions) == 0:
            continue
        at = np.searchsorted(pos, positions)
        at[at >= len(pos)] = 0
        hit = pos[at] == positions
        matrix[hit, row] = scores[at[hit]] * demand.weights[row]
    found = []
    for index in range(len(positions)):
        rows = np.flatnonzero(matrix[index])
        ranked = rows[np.lexsort((rows, -matrix[index, rows]))]
        found.append([int(r) for r in ranked])
    return found


def _take(
    corpus: CorpusArrays,
    demand: PreparedDemand,
    position: int,
    scores: tuple[float, float],
    chosen: _Selection,
    personal: Personalization | None = None,
) -> None:
    """Record a match (nobody who muted it or strongly dislikes it is pinged)."""
    rows = matching_topics(demand, np.array([position], dtype=np.intp))[0]
    for row in rows:
        chosen.topic_picks[row] += 1
    chosen.venue_picks[int(corpus.venue_codes[position])] += 1
    users = tuple(int(u) for u in demand.user_ids[demand.members[rows].any(axis=0)])
    topics = tuple(demand.topics[r] for r in rows)
    audience = len(demand.user_ids)
    reason = match_reason(topics, len(users), audience) if topics else liked_reason(audience)
    if personal is not None:
        users = personal.pingable(corpus.vectors, position, users)
    chosen.picks.append(
        Pick(
            paper_id=int(corpus.ids[position]),
            reason=reason,
            topics=topics,
            subscribers=users,
            relevance=scores[0],
            profile=scores[1],
        )
    )
    chosen.taken.append(position)


def _near_fill(
    corpus: CorpusArrays,
    demand: PreparedDemand,
    excluded: NDArray[np.bool_],
    count: int,
    chosen: _Selection,
    personal: Personalization | None = None,
) -> None:
    """Near matches of the subscribed topics, best first, while slots remain."""
    blocked = excluded.copy()
    blocked[list(chosen.taken)] = True
    near = demand.near_positions, demand.near_scores, demand.weights
    for position, rows in near_order(len(corpus), *near, blocked):
        if len(chosen.picks) >= count:
            break
        if personal is not None and personal.is_near_disliked(corpus.vectors, position):
            continue
        topics = tuple(demand.topics[r] for r in rows)
        reason = near_reason(topics, len(demand.user_ids))
        chosen.picks.append(Pick(paper_id=int(corpus.ids[position]), reason=reason, kind="fill"))
        chosen.taken.append(position)


def _fill(
    corpus: CorpusArrays,
    excluded: NDArray[np.bool_],
    count: int,
    chosen: _Selection,
    audience: int,
    personal: Personalization | None = None,
) -> None:
    """Newest unposted papers: the newest year first, its venues dealt in turns."""
    need = count - len(chosen.picks)
    if need <= 0:
        return
    blocked = excluded.copy()
    blocked[list(chosen.taken)] = True
    order = corpus.fill_order[~blocked[corpus.fill_order]]
    years, venues = corpus.years[order], corpus.venue_codes[order]
    # One key per (year, venue) run: years and venue codes both fit in 32 bits.
    rank = rank_in_group((years.astype(np.int64) << 32) | venues.astype(np.int64))
    # No group gives more than `need` papers (2x when near-duplicates may be dropped).
    head = rank < (need if personal is None or not len(personal.disliked) else 2 * need)
    order, years, venues, rank = order[head], years[head], venues[head], rank[head]
    dealt = order[np.lexsort((corpus.ids[order], venues, rank, -years))]
    reason = fill_reason(audience)
    for position in dealt:
        if len(chosen.picks) >= count:
            break
        if personal is not None and personal.is_near_disliked(corpus.vectors, int(position)):
            continue
        chosen.picks.append(Pick(paper_id=int(corpus.ids[position]), reason=reason, kind="fill"))
