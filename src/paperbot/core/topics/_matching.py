"""Matching topics to papers: batch scores over a `TopicCorpus`, explanations.

Batch matching (`match_topic`) narrows candidates with per-field postings
(Latin word -> papers, CJK character -> papers) and verifies each candidate
with one substring test, so a topic over 100,000 papers costs milliseconds.

A paper matches when its score reaches `RELEVANCE_THRESHOLD`. The score says
how central the topic is to the paper: a term in the title counts most, in
the lead of the summary (its opening share) next, a passing mention later
least (more when said twice); every further term of the topic found adds a
little. So a single passing mention falls below the threshold. Then the
topic's clear matches decide its borderline papers (`_feedback`). Weak aliases
(`Topic.weak_aliases`) count only in the title or beside another term of the
topic. Papers' words are matched exactly (after folding): typo tolerance is
for what users type (`resolve` for topics; a keyword's word that no paper
uses is matched through the corpus words one edit away).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from paperbot.core.topics._corpus import FloatArray, IntArray, TopicCorpus, build_corpus
from paperbot.core.topics._feedback import Profile, closest, refine
from paperbot.core.topics._hits import TOPIC_TITLE_WEIGHT, Hits, counted_hits
from paperbot.core.topics._sense import Counted, other_sense
from paperbot.core.topics._typed import Term
from paperbot.core.topics._vocabulary import Topic, Vocabulary

TOPIC_EXTRA_TERM_WEIGHT = 0.5
TOPIC_EXTRA_TERMS_COUNTED = 3
MAX_TOPIC_SCORE = TOPIC_TITLE_WEIGHT + TOPIC_EXTRA_TERM_WEIGHT * TOPIC_EXTRA_TERMS_COUNTED
"""The best score `match_topic` can give: a title hit plus every extra term
counted. Dividing by it puts topic scores on a [0, 1] scale."""

RELEVANCE_THRESHOLD = 1.6
"""Least score of a match: a title or lead hit passes; a passing mention needs
a second term or a repeat of itself plus another term."""

FEEDBACK_REASON = "close to the topic's clear matches"
"""The reason shown for a match the feedback accepted (see `_feedback`)."""

NEAR_LIMIT = 24
"""Most near matches kept per topic: papers with some evidence for the topic
(a passing mention, a weak alias alone) below `RELEVANCE_THRESHOLD`. They are
never matches; the digest uses them, best first, before unrelated fill."""


def _scores(hits: Sequence[tuple[Term, Hits]], size: int) -> FloatArray:
    """Best place of any term, plus a little for every further term found
    (a bilingual expansion adds in proportion to its weight)."""
    best = np.zeros(size, dtype=np.float64)
    total = np.zeros(size, dtype=np.float64)
    strongest = np.zeros(size, dtype=np.float64)
    for term, found in hits:
        where = found.positions
        best[where] = np.maximum(best[where], found.weights)
        total[where] += term.quality
        strongest[where] = np.maximum(strongest[where], term.quality)
    extra = np.clip(total - strongest, 0, TOPIC_EXTRA_TERMS_COUNTED)
    return np.minimum(best + TOPIC_EXTRA_TERM_WEIGHT * extra, MAX_TOPIC_SCORE)


def _placed(hits: Sequence[tuple[Term, Hits]]) -> list[Counted]:
    """Per term, the papers where it counts and those whose title holds it."""
    placed: list[Counted] = []
    for term, found in hits:
        live = found.weights > 0
        placed.append((term, found.positions[live], found.positions[live & found.in_title]))
    return placed


@dataclass(frozen=True, slots=True)
class TopicMatches:
    """Papers matching one topic, best first: parallel `ids` and `scores`;
    and up to `NEAR_LIMIT` near matches (`near_ids`, `near_scores`, best
    first), which are not matches and not counted in `len`; and the
    feedback `profile` they were decided with (appended papers are decided
    with it too: `_append.extend_matches`)."""

    ids: IntArray
    scores: FloatArray
    near_ids: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    near_scores: FloatArray = field(default_factory=lambda: np.zeros(0, dtype=np.float64))
    profile: Profile = field(default_factory=Profile)

    def __len__(self) -> int:
        return len(self.ids)

    @classmethod
    def empty(cls) -> TopicMatches:
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))


def match_topic(
    topic: Topic,
    corpus: TopicCorpus,
    protected: frozenset[str] = frozenset(),
    vocabulary: Vocabulary | None = None,
    *,
    frozen: Profile | None = None,
    indexed: bool = False,
) -> TopicMatches:
    """Every paper of the corpus the topic is relevant to, with scores, best first.

    Scores (see the module doc) are at most `MAX_TOPIC_SCORE`; papers below
    `RELEVANCE_THRESHOLD` are left out, then the topic's clear matches decide
    the borderline papers (`_feedback.refine`: a near paper they accept
    matches with the threshold score, a weak match they reject becomes near);
    ties are broken by paper id. With
    `vocabulary`, a keyword is expanded through its bilingual concepts.
    Pass `vocabulary.term_words()` as `protected` so a keyword's word is
    never corrected to a vocabulary word it is not. With `frozen`, the
    borderline papers are decided by that profile instead of the corpus's;
    `indexed` reads the profile's terms from an index of the corpus's terms
    (for a page's few papers, `_terms`: the same decisions, the exact
    closest papers as fill).
    """
    counted = counted_hits(topic, corpus, protected, vocabulary)
    hits = counted.hits
    score = _scores(hits, len(corpus))
    # A title saying the topic's term only in another topic's sense: the
    # feedback decides the paper (`_sense`); one it keeps keeps its score.
    other = other_sense(topic, _placed(hits), corpus, vocabulary)
    said = score[other]
    score[other] = RELEVANCE_THRESHOLD
    matched = score >= RELEVANCE_THRESHOLD
    refined = refine(score, corpus, RELEVANCE_THRESHOLD, frozen, indexed=indexed)
    kept = ~np.isin(other, refined.dropped)
    score[other[kept]] = said[kept]
    accepted = refined.accepted
    if counted.saying is not None:
        # A keyword within a topic: the feedback of its few clear matches is
        # mostly the topic's (on the judged keywords, 1 in 4 papers it
        # accepted without the keyword was relevant); such papers stay near.
        accepted = accepted[counted.saying[accepted]]
    # A paper the feedback accepts gets the least match score: its words
    # alone said less than any other match's.
    score[accepted] = RELEVANCE_THRESHOLD
    matched[accepted] = True
    matched[refined.dropped] = False
    positions = _best_first(score, corpus.ids, np.flatnonzero(matched))
    near = _near(score, matched, corpus, refined.weights, indexed=indexed)
    live = len(corpus) - len(corpus.dead)
    made = Profile(tuple(refined.weights.items()), refined.clear, live)
    made = frozen if frozen is not None else made
    ids = corpus.ids
    return TopicMatches(ids[positions], score[positions], ids[near], score[near], made)


def _near(
    score: FloatArray,
    matched: npt.NDArray[np.bool_],
    corpus: TopicCorpus,
    weights: dict[str, float],
    *,
    indexed: bool,
) -> npt.NDArray[np.intp]:
    """The best `NEAR_LIMIT` papers with some evidence that do not match,
    best first; room left goes to the papers closest to the profile (their
    near scores are written into `score`)."""
    near = np.flatnonzero((score > 0) & ~matched)
    if len(near) < NEAR_LIMIT:
        room = NEAR_LIMIT - len(near)
        close, close_scores = closest(score, corpus, weights, room, indexed=indexed)
        score[close] = close_scores
        near = np.flatnonzero((score > 0) & ~matched)
    if len(near) > NEAR_LIMIT:
        # Every paper tied with the last one kept stays a candidate, so ties
        # go by paper id (as a merge of appended papers' matches does).
        least = np.partition(-score[near], NEAR_LIMIT - 1)[NEAR_LIMIT - 1]
        near = near[-score[near] <= least]
    return _best_first(score, corpus.ids, near)[:NEAR_LIMIT]


ADDED_NEAR_TOP = 0.01
"""Highest near score of a paper `with_more_near` adds (and at most half the
lowest near score already there): after every paper with evidence."""


def with_more_near(matches: TopicMatches, found: Sequence[int]) -> TopicMatches:
    """`matches` with the papers of `found` (best first) that it holds
    nowhere as further near papers, up to `NEAR_LIMIT` in all, each scored
    below every near paper it had and below the one before it: for a
    keyword whose own terms found few papers, the matches of the topics it
    names a part of come before unrelated fill, still never as matches."""
    room = NEAR_LIMIT - len(matches.near_ids)
    held = set(matches.ids.tolist()) | set(matches.near_ids.tolist())
    extra = [paper for paper in dict.fromkeys(found) if paper not in held][: max(room, 0)]
    if not extra:
        return matches
    lowest = float(np.min(matches.near_scores, initial=np.inf))
    top = min(ADDED_NEAR_TOP, lowest / 2)
    falling = top * np.arange(len(extra), 0, -1, dtype=np.float64) / len(extra)
    return replace(
        matches,
        near_ids=np.concatenate([matches.near_ids, np.array(extra, dtype=np.int64)]),
        near_scores=np.concatenate([matches.near_scores, falling]),
    )


def _best_first(
    score: FloatArray, ids: IntArray, positions: npt.NDArray[np.intp]
) -> npt.NDArray[np.intp]:
    """`positions` by falling score, ties by paper id."""
    ordered: npt.NDArray[np.intp] = positions[np.lexsort((ids[positions], -score[positions]))]
    return ordered


def explain(
    topic: Topic,
    title: str,
    summary: str,
    protected: frozenset[str] = frozenset(),
    vocabulary: Vocabulary | None = None,
    *,
    matched: bool = False,
) -> tuple[str, ...]:
    """Why a paper matches a topic: `("title: scaling law", "summary: 缩放定律")`.

    One line per field and counted term, title lines first; empty when the
    paper does not match. The same code as `match_topic`, on the paper
    alone: pass `matched=True` for a paper `match_topic` returned, and a
    match its words alone do not carry (the feedback accepted it) ends with
    `FEEDBACK_REASON`.
    """
    corpus = build_corpus([(0, title, summary)])
    hits = counted_hits(topic, corpus, protected, vocabulary).hits
    # A paper `_sense` reads in another topic's sense matches only through the feedback.
    other = len(other_sense(topic, _placed(hits), corpus, vocabulary)) > 0
    alone = _scores(hits, 1)[0] >= RELEVANCE_THRESHOLD and not other
    if not (alone or matched):
        return ()
    counted = [(term, found) for term, found in hits if len(found.positions)]
    lines = [f"title: {t.shown}" for t, found in counted if found.in_title[0]]
    lines += [f"summary: {t.shown}" for t, found in counted if found.in_summary[0]]
    return tuple(lines) if alone else (*lines, FEEDBACK_REASON)


def score_paper(
    topic: Topic,
    title: str,
    summary: str,
    protected: frozenset[str] = frozenset(),
    vocabulary: Vocabulary | None = None,
) -> float:
    """The `match_topic` score of one paper (0 when it does not match)."""
    corpus = build_corpus([(0, title, summary)])
    matches = match_topic(topic, corpus, protected, vocabulary)
    return float(matches.scores[0]) if len(matches) else 0.0
