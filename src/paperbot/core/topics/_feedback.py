"""Pseudo-relevance feedback: a topic's clear matches decide its borderline papers.

Word evidence alone cannot tell a passing mention that is central from one
that is not, nor a real match resting on one passing term from an accident.
The papers that match a topic clearly (`STRONG_SCORE`: a title or lead hit)
say what else its papers talk about: the terms (folded Latin words, CJK
character pairs) much more common among them than in the corpus make the
topic's *profile* (a relevance model: share among the clear matches times
the log of how much more common than in the corpus, the `PROFILE_TERMS`
heaviest). A borderline paper's feedback is the weighted share of the
profile its title and summary hold:

- a near paper (some evidence, below the threshold) with feedback at least
  `ACCEPT_FEEDBACK` becomes a match;
- a weak match (at or above the threshold but below `STRONG_SCORE`: passing
  mentions adding up, a keyword's expansion in a lead) with feedback below
  `KEEP_FEEDBACK` becomes near;
- papers without any word of the topic are never matches (measured on the
  judged set, the closest 1% to a profile were mostly unrelated), but when
  the words leave near places free (`closest`), the papers holding most of
  the profile take them: the digest offers them as fill, "close to your
  topic", before unrelated new papers.

It generalises to any topic or keyword: no list is involved, only the
papers' own words. Below `MIN_STRONG` clear matches there is no profile and
nothing changes. The profile reads at most `PROFILE_DOCS` clear matches (the
best, ties by position) and the corpus frequencies are counted over at most
`BACKGROUND_DOCS` papers (cached per corpus), so the cost stays small at
100,000 papers. That sample is the papers whose ids hash lowest (a bottom-k
sample): appending papers only lets the few new ones hashing below its
cutoff in, instead of reshuffling an evenly spaced one.

A topic's profile is kept with its matches (`Profile`): a page appended
later is decided against that frozen profile (`_append.extend_matches`),
like new vectors against an IVF index's frozen centroids, until the papers
added, changed or removed since pass `REFRESH_SHARE` of those it was made
from; then the topic is matched afresh.
"""

from __future__ import annotations

import math
import weakref
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import repeat

import numpy as np
import numpy.typing as npt

from paperbot.core.topics._bits import holding_all
from paperbot.core.topics._corpus import FloatArray, IntArray, PosArray, TopicCorpus
from paperbot.core.topics._keys import is_cjk_token
from paperbot.core.topics._terms import indexed_closeness, indexed_feedback

PosList = npt.NDArray[np.intp]
_NONE = np.zeros(0, dtype=np.int32)

STRONG_SCORE = 2.0
"""Least score of a clear match (a lead hit; a title hit is 3)."""
MIN_STRONG = 2
PROFILE_DOCS = 30
PROFILE_TERMS = 60
MIN_TERM_DOCS = 2
"""A profile term appears in at least this many clear matches."""
ACCEPT_FEEDBACK = 0.25
KEEP_FEEDBACK = 0.2
MIN_CLOSE_FEEDBACK = 0.1
"""Least feedback of a paper without word evidence offered as near (fill)."""
CLOSE_SCALE = 0.2
"""Near score per feedback of such a paper: at most 0.2, below any word
evidence (the least is a partial expansion's passing mention, 0.24)."""
BACKGROUND_DOCS = 2000
_SEARCH_SHARE = 16
"""Fewer positions than 1/16 of the corpus are looked up by binary search."""
READ_FACTOR = 4
"""Papers without word evidence confirmed per near place left: the best by
an upper bound of their feedback (CJK pairs taken as held when both
characters are)."""

# Common English function words; common terms weigh little anyway (they are
# as usual among the clear matches as in the corpus).
_STOP = frozenset(
    {"the", "a", "an", "of", "for", "and", "in", "on", "to", "with", "via", "by"}
    | {"from", "is", "are", "we", "our", "this", "that", "as", "at", "be", "it", "its"}
)
REFRESH_SHARE = 0.1
"""A frozen profile is made afresh once the papers added, changed or
removed since it was made pass this share of the papers it was made over
(the search index's rule for dead entries)."""
_BACKGROUND: dict[int, tuple[weakref.ref[TopicCorpus], Counter[str], int]] = {}
"""Per corpus (by identity: a corpus is immutable), its background counts."""


def paper_terms(text: str) -> set[str]:
    """The distinct terms of a padded key: Latin words (no stop words, no
    numbers, no single letters) and CJK character pairs."""
    found: set[str] = set()
    for token in text.split():
        if is_cjk_token(token):
            found.update(token[i : i + 2] for i in range(max(1, len(token) - 1)))
        elif len(token) > 1 and token not in _STOP and not token.isdigit():
            found.add(token)
    return found


def _doc_terms(corpus: TopicCorpus, position: int) -> set[str]:
    return paper_terms(f"{corpus.title.docs[position]} {corpus.summary.docs[position]}")


def _background(corpus: TopicCorpus) -> tuple[Counter[str], int]:
    """Document frequencies over the live papers whose ids hash lowest, and how
    many were read."""
    cached = _BACKGROUND.get(id(corpus))
    if cached is not None and cached[0]() is corpus:
        return cached[1], cached[2]
    live = np.ones(len(corpus), dtype=np.bool_)
    live[corpus.dead] = False  # blanked entries of removed or changed papers
    positions = np.flatnonzero(live)
    sample = positions[background_sample(corpus.ids[positions])]
    counts: Counter[str] = Counter()
    for position in sample.tolist():
        counts.update(_doc_terms(corpus, position))
    key = id(corpus)
    gone = weakref.ref(corpus, lambda _: _BACKGROUND.pop(key, None))
    _BACKGROUND[key] = (gone, counts, len(sample))
    return counts, len(sample)


def background_sample(ids: IntArray) -> PosList:
    """Ascending positions of the `BACKGROUND_DOCS` papers whose ids hash lowest.

    The hash mixes a paper's id (its stable identity: a paper that comes
    back keeps its id), so the sample is spread over the corpus and a
    paper's membership depends only on the other papers' hashes, not on
    their positions: appending 1% changes about 1% of it."""
    size = BACKGROUND_DOCS
    if len(ids) <= size:
        return np.arange(len(ids), dtype=np.intp)
    mixed = _mix(ids)
    chosen = np.argpartition(mixed, size - 1)[:size]
    return np.sort(chosen).astype(np.intp)


def _mix(ids: IntArray) -> npt.NDArray[np.uint64]:
    """SplitMix64's finaliser over the ids: a bijection, so no ties."""
    z = ids.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    mixed: npt.NDArray[np.uint64] = z ^ (z >> np.uint64(31))
    return mixed


@dataclass(frozen=True, slots=True)
class Profile:
    """A topic's feedback state, kept with its matches: the profile's terms
    and weights, how many clear matches the topic had (below `MIN_STRONG`:
    no profile), the papers it was made over, and the papers added, changed
    or removed since (past `REFRESH_SHARE` of `papers` it is made afresh)."""

    weights: tuple[tuple[str, float], ...] = ()
    clear: int = 0
    papers: int = 0
    since: int = 0

    @property
    def stale(self) -> bool:
        return self.since > REFRESH_SHARE * self.papers


def profile(corpus: TopicCorpus, strong: Iterable[int]) -> dict[str, float]:
    """The topic's profile from its clear matches' positions (best first)."""
    docs = list(strong)[:PROFILE_DOCS]
    counts: Counter[str] = Counter()
    for position in docs:
        counts.update(_doc_terms(corpus, position))
    background, read = _background(corpus)
    weights: dict[str, float] = {}
    for term, count in counts.items():
        if count < MIN_TERM_DOCS:
            continue
        share = count / len(docs)
        usual = (background.get(term, 0) + 1) / (read + 2)
        if share > usual:
            weights[term] = share * math.log(share / usual)
    heaviest = sorted(weights.items(), key=lambda item: (-item[1], item[0]))[:PROFILE_TERMS]
    return dict(heaviest)


def feedback(
    corpus: TopicCorpus, positions: PosList, weights: dict[str, float], *, exact: bool = True
) -> FloatArray:
    """The weighted share of the profile each paper at `positions` holds, in [0, 1].

    Per profile term, the papers holding it come from the postings (a CJK
    pair: papers with both characters, confirmed by a substring test unless
    `exact` is false, which gives an upper bound), so the cost grows with
    the profile, not with the papers' lengths."""
    total = sum(weights.values())
    held = np.zeros(len(positions), dtype=np.float64)
    if total <= 0 or len(positions) == 0:
        return held
    slots = _slots(positions, len(corpus))
    for term, weight in weights.items():
        held[_holding(corpus, positions, term, exact, slots)] += weight
    result: FloatArray = held / total
    return result


def _slots(positions: PosList, size: int) -> PosArray | None:
    """Each position's index among `positions` (-1: not among them); None
    for a few positions, which `_member` finds by binary search."""
    if len(positions) * _SEARCH_SHARE < size:
        return None
    slots = np.full(size, -1, dtype=np.int32)
    slots[positions] = np.arange(len(positions), dtype=np.int32)
    return slots


def _holding(
    corpus: TopicCorpus, positions: PosList, term: str, exact: bool, slots: PosArray | None = None
) -> npt.NDArray[np.bool_]:
    """Which of `positions` hold the term in their title or summary (`slots`:
    `_slots` of them, when asked about many terms)."""
    found = np.zeros(len(positions), dtype=np.bool_)
    for data in (corpus.title, corpus.summary):
        if not is_cjk_token(term):
            found |= _member(positions, data.word_postings.get(term, _NONE), len(corpus), slots)
            continue
        both = holding_all(corpus, data.char_postings, set(term), positions)
        if not exact:
            found |= both
            continue
        unsure = np.flatnonzero(both & ~found)
        texts = map(data.docs.__getitem__, positions[unsure].tolist())
        held = map(str.__contains__, texts, repeat(term))
        found[unsure] = np.fromiter(held, dtype=np.bool_, count=len(unsure))
    return found


def _member(
    positions: PosList, postings: PosArray, size: int, slots: PosArray | None = None
) -> npt.NDArray[np.bool_]:
    """Which of `positions` are in `postings` (ascending, positions below
    `size`): a binary search each for a few positions, else through their
    `slots` when given, else a scatter."""
    if len(postings) == 0:
        return np.zeros(len(positions), dtype=np.bool_)
    if len(positions) * _SEARCH_SHARE < size:
        # Searched in the postings' own type: a mixed one would copy them.
        wanted = positions.astype(postings.dtype)
        at = np.searchsorted(postings, wanted).clip(0, len(postings) - 1)
        found: npt.NDArray[np.bool_] = postings[at] == wanted
        return found
    if slots is not None:
        held = np.zeros(len(positions), dtype=np.bool_)
        at = slots[postings]
        held[at[at >= 0]] = True
        return held
    mark = np.zeros(size, dtype=np.bool_)
    mark[postings] = True
    result: npt.NDArray[np.bool_] = mark[positions]
    return result


@dataclass(frozen=True, slots=True)
class Refined:
    """What the feedback changed: positions that become matches, positions
    that stop being matches, and the profile (empty without clear matches)."""

    accepted: PosList
    dropped: PosList
    weights: dict[str, float]
    clear: int
    """The clear matches the profile came from (a frozen one: then)."""


def refine(
    score: FloatArray,
    corpus: TopicCorpus,
    threshold: float,
    frozen: Profile | None = None,
    *,
    indexed: bool = False,
) -> Refined:
    """The feedback's decisions from the first-stage `score` of every paper,
    against the `frozen` profile when given (papers appended to a corpus
    whose matches were made with it), else the corpus's own; `indexed`:
    the feedback read through the corpus's term index (`_terms`)."""
    none: PosList = np.zeros(0, dtype=np.intp)
    if frozen is not None:
        weights, clear = dict(frozen.weights), frozen.clear
    else:
        strong = np.flatnonzero(score >= STRONG_SCORE)
        # Ties by id, not position: the same in a full build (ids ascend
        # with positions) and in a corpus a changed paper was appended to.
        strong = strong[np.lexsort((corpus.ids[strong], -score[strong]))]
        clear = len(strong)
        weights = profile(corpus, strong.tolist()) if clear >= MIN_STRONG else {}
    if clear < MIN_STRONG:
        return Refined(none, none, {}, clear)
    border = np.flatnonzero((score > 0) & (score < STRONG_SCORE))
    if indexed:
        values = indexed_feedback(corpus, weights)[border]
    else:
        values = feedback(corpus, border, weights)
    near = score[border] < threshold
    accepted = border[near & (values >= ACCEPT_FEEDBACK)].astype(np.intp)
    dropped = border[~near & (values < KEEP_FEEDBACK)].astype(np.intp)
    return Refined(accepted, dropped, weights, clear)


def closest(
    score: FloatArray,
    corpus: TopicCorpus,
    weights: dict[str, float],
    room: int,
    *,
    indexed: bool = False,
) -> tuple[PosList, FloatArray]:
    """Up to `room` papers without word evidence (`score` 0) holding at least
    `MIN_CLOSE_FEEDBACK` of the profile, most first (ties by position), with
    near scores `CLOSE_SCALE` x their feedback (below any word evidence).

    The candidates confirmed are the `READ_FACTOR` x `room` best by an upper
    bound of their feedback (CJK pairs taken as held when both characters
    are), so the cost does not grow with their number. `indexed` (a page's
    papers, `_terms`): every candidate's feedback is read exactly instead,
    so those found are the exact best, at least as close as the estimate's.
    """
    total = sum(weights.values())
    none: PosList = np.zeros(0, dtype=np.intp)
    if room <= 0 or total <= 0:
        return none, np.zeros(0, dtype=np.float64)
    zero = np.flatnonzero(score == 0).astype(np.intp)
    if indexed:
        return _best(zero, indexed_closeness(corpus, weights)[zero], room)
    exact = np.zeros(len(zero), dtype=np.float64)
    pairs: list[tuple[str, float, npt.NDArray[np.bool_]]] = []
    for term, weight in weights.items():
        if is_cjk_token(term):
            pairs.append((term, weight / total, _holding(corpus, zero, term, exact=False)))
        else:
            exact[_holding(corpus, zero, term, exact=True)] += weight / total
    bound = exact + sum((w * held for _, w, held in pairs), np.zeros(len(zero)))
    order = np.lexsort((zero, -bound))
    order = order[bound[order] >= MIN_CLOSE_FEEDBACK]
    # Confirmed: the best by the bound, a few times the room (an estimate
    # of the exact top, at a cost that does not grow with the corpus).
    chunk = order[: READ_FACTOR * room]
    values = exact[chunk] + _confirmed(corpus, zero, chunk, pairs)
    return _best(zero[chunk], values, room)


def _best(positions: PosList, values: FloatArray, room: int) -> tuple[PosList, FloatArray]:
    """The `room` best of `positions` by `values` (at least
    `MIN_CLOSE_FEEDBACK`; ties by position) with their near scores."""
    keep = values >= MIN_CLOSE_FEEDBACK
    found = zip((-values[keep]).tolist(), positions[keep].tolist(), strict=True)
    best = sorted(found)[:room]
    chosen = np.asarray([p for _, p in best], dtype=np.intp)
    return chosen, CLOSE_SCALE * -np.asarray([v for v, _ in best], dtype=np.float64)


def _confirmed(
    corpus: TopicCorpus,
    zero: PosList,
    chunk: npt.NDArray[np.intp],
    pairs: list[tuple[str, float, npt.NDArray[np.bool_]]],
) -> FloatArray:
    """The weight of the CJK pair terms the papers `zero[chunk]` really hold."""
    held = np.zeros(len(chunk), dtype=np.float64)
    titles, summaries = corpus.title.docs, corpus.summary.docs
    for term, weight, maybe in pairs:
        for at in np.flatnonzero(maybe[chunk]).tolist():
            position = int(zero[chunk[at]])
            if term in titles[position] or term in summaries[position]:
                held[at] += weight
    return held
