"""`bench digest` with votes: what a server's post costs when its readers vote.

Every subscriber gives `--votes` votes (half 👍 on papers of their topics, half
👎 anywhere; one vote per reader and paper, as the database keeps them). In
the same run as the pick without votes (`pick_ms`):

* `personalize_cold_ms`: the server's personalization built from nothing
  (`ProfileState.build`, every reader's model fitted together), what the first
  pick after a corpus change pays;
* `post_with_votes_ms`: a post's whole cost with votes, the kept state's
  personalization plus the pick (best of `--repeat`), and its ratio to the pick
  without votes, `post_with_votes_vs_no_votes`;
* `vote_update_ms`: one vote coming in (that reader's model fitted again and
  swapped in) plus the next post's personalization (median of `--repeat`
  votes, each on a random reader and paper);
* `rebuild_warm_ms`: `personalize` from scratch with every model cached, what
  each post paid before the state was kept, and `same_picks_as_rebuild`: after
  the votes above, the kept state picks what the rebuild picks.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from paperbot.core.digest import CorpusArrays, DigestPlan, PreparedDemand, TopicDemand, pick
from paperbot.core.profile import ModelKey, Personalization, ReaderModel, personalize
from paperbot.core.profile_state import ProfileState

# user -> corpus position -> +1 / -1
Votes = dict[int, dict[int, int]]


def with_votes(
    corpus: CorpusArrays,
    demands: Sequence[TopicDemand],
    posted: Sequence[int],
    args: argparse.Namespace,
    plain_s: float,
) -> dict[str, Any]:
    votes = synthetic_votes(corpus, demands, args.votes, seed=13)
    audience = {u for d in demands for u in d.subscribers}
    start = time.perf_counter()
    state = ProfileState.build(corpus.vectors, _split(votes), {})
    cold_s = time.perf_counter() - start
    personal_s, pick_s, post_s = [], [], []
    for _ in range(args.repeat):
        start = time.perf_counter()
        personal = state.personalization(audience)
        middle = time.perf_counter()
        plan = _pick(corpus, demands, posted, args.count, personal)
        personal_s.append(middle - start)
        pick_s.append(time.perf_counter() - middle)
        post_s.append(time.perf_counter() - start)
    disliked = _net_disliked(corpus, votes)
    updates = _vote_updates(corpus, state, votes, audience, args.repeat)
    rebuild = _rebuild(corpus, demands, posted, args.count, state, votes, audience)
    post = min(post_s)
    return {
        "voters": len(votes),
        "votes": sum(len(own) for own in votes.values()),
        "personalize_cold_ms": cold_s * 1000,
        "personalize_warm_ms": min(personal_s) * 1000,
        "pick_with_votes_ms": min(pick_s) * 1000,
        "pick_with_votes_vs_no_votes": min(pick_s) / plain_s,
        "pick_and_warm_personalize_ms": (min(pick_s) + min(personal_s)) * 1000,
        "post_with_votes_ms": post * 1000,
        "post_with_votes_vs_no_votes": post / plain_s,
        "post_with_votes_within_200ms": post <= 0.2,
        "vote_update_ms": statistics.median(updates) * 1000,
        "vote_update_max_ms": max(updates) * 1000,
        **rebuild,
        "kept_vs_rebuild_warm": min(personal_s) / rebuild["rebuild_warm_ms"] * 1000,
        "net_disliked_picked": sum(1 for p in plan.picks if p.paper_id in disliked),
    }


def _pick(
    corpus: CorpusArrays,
    demands: Sequence[TopicDemand],
    posted: Sequence[int],
    count: int,
    personal: Personalization,
) -> DigestPlan:
    # Prepared inside the timing, as the pick without votes is.
    return pick(corpus, PreparedDemand.build(corpus, demands), posted, count, personal)


def _vote_updates(
    corpus: CorpusArrays,
    state: ProfileState,
    votes: Votes,
    audience: set[int],
    repeat: int,
) -> list[float]:
    """Seconds for one vote (a press: again undoes, the other replaces) to
    reach the state, plus the next post's personalization."""
    rng = np.random.default_rng(17)
    users = sorted(votes)
    found = []
    for _ in range(repeat):
        user = users[int(rng.integers(len(users)))]
        own = votes[user]
        position, value = int(rng.integers(len(corpus))), int(rng.choice([1, -1]))
        if own.get(position) == value:
            del own[position]
        else:
            own[position] = value
        start = time.perf_counter()
        state.update({user: _split({user: own})[user]})
        state.personalization(audience)
        found.append(time.perf_counter() - start)
    return found


def _rebuild(
    corpus: CorpusArrays,
    demands: Sequence[TopicDemand],
    posted: Sequence[int],
    count: int,
    state: ProfileState,
    votes: Votes,
    audience: set[int],
) -> dict[str, Any]:
    """`personalize` from scratch over the same votes: its warm time (every
    model cached, the second call) and whether its picks are the kept state's."""
    rows = [(user, p, v) for user, own in votes.items() for p, v in own.items()]
    models: dict[ModelKey, ReaderModel] = {}
    personalize(corpus.vectors, rows, {}, audience, models=models)
    start = time.perf_counter()
    rebuilt = personalize(corpus.vectors, rows, {}, audience, models=models)
    warm_s = time.perf_counter() - start
    theirs = _pick(corpus, demands, posted, count, rebuilt).picks
    ours = _pick(corpus, demands, posted, count, state.personalization(audience)).picks
    return {
        "rebuild_warm_ms": warm_s * 1000,
        "same_picks_as_rebuild": [p.paper_id for p in ours] == [p.paper_id for p in theirs],
    }


def _split(votes: Mapping[int, Mapping[int, int]]) -> dict[int, tuple[list[int], list[int]]]:
    return {
        user: ([p for p, v in own.items() if v > 0], [p for p, v in own.items() if v < 0])
        for user, own in votes.items()
    }


def _net_disliked(corpus: CorpusArrays, votes: Votes) -> set[int]:
    net: dict[int, int] = {}
    for own in votes.values():
        for position, value in own.items():
            net[position] = net.get(position, 0) + value
    return {int(corpus.ids[p]) for p, value in net.items() if value < 0}


def synthetic_votes(
    corpus: CorpusArrays, demands: Sequence[TopicDemand], per_reader: int, seed: int
) -> Votes:
    """Each subscriber likes papers of their topics and dislikes random
    papers, `per_reader` votes drawn in all (one kept per paper: the last)."""
    rng = np.random.default_rng(seed)
    topics_of: dict[int, list[int]] = {}
    for row, demand in enumerate(demands):
        for user in demand.subscribers:
            topics_of.setdefault(user, []).append(row)
    votes: Votes = {}
    for user, rows in sorted(topics_of.items()):
        pool = np.concatenate([demands[r].ids for r in rows])
        likes = corpus.positions(rng.choice(pool, size=per_reader // 2) if len(pool) else [])
        dislikes = rng.integers(0, len(corpus), size=per_reader - len(likes))
        own = votes.setdefault(user, {})
        own.update({int(p): 1 for p in likes})
        own.update({int(p): -1 for p in dislikes})
    return votes
