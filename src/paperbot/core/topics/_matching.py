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
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np
import numpy.typing as npt

from paperbot.core.arrays import sorted_union
from paperbot.core.text import is_cjk_run
from paperbot.core.topics._bilingual import expand_bilingual
from paperbot.core.topics._corpus import (
    FieldIndex,
    FloatArray,
    IntArray,
    PosArray,
    TopicCorpus,
    build_corpus,
)
from paperbot.core.topics._feedback import Profile, closest, refine
from paperbot.core.topics._generic import alias_reading
from paperbot.core.topics._keys import needle
from paperbot.core.topics._sense import Counted, other_sense
from paperbot.core.topics._typed import Term, topic_terms, typed_corrections
from paperbot.core.topics._vocabulary import Topic, Vocabulary

BoolArray = npt.NDArray[np.bool_]

TOPIC_TITLE_WEIGHT = 3.0
TOPIC_LEAD_WEIGHT = 2.0
TOPIC_SUMMARY_WEIGHT = 1.0
TOPIC_REPEAT_BONUS = 0.5
"""Added to a mention outside the lead that the summary makes more than once."""
TOPIC_EXTRA_TERM_WEIGHT = 0.5
TOPIC_EXTRA_TERMS_COUNTED = 3
MAX_TOPIC_SCORE = TOPIC_TITLE_WEIGHT + TOPIC_EXTRA_TERM_WEIGHT * TOPIC_EXTRA_TERMS_COUNTED
"""The best score `match_topic` can give: a title hit plus every extra term
counted. Dividing by it puts topic scores on a [0, 1] scale."""

RELEVANCE_THRESHOLD = 1.6
"""Least score of a match: a title or lead hit passes; a passing mention needs
a second term or a repeat of itself plus another term."""

LEAD_SHARE = 0.35
LEAD_MIN_CHARS = 40
"""The lead of a summary: its first `LEAD_SHARE` (at least `LEAD_MIN_CHARS`
characters of its key), where a summary says what the paper is about."""

FEEDBACK_REASON = "close to the topic's clear matches"
"""The reason shown for a match the feedback accepted (see `_feedback`)."""

NEAR_LIMIT = 24
"""Most near matches kept per topic: papers with some evidence for the topic
(a passing mention, a weak alias alone) below `RELEVANCE_THRESHOLD`. They are
never matches; the digest uses them, best first, before unrelated fill."""

_EMPTY: PosArray = np.zeros(0, dtype=np.int32)


def _candidates(key: str, data: FieldIndex) -> PosArray:
    """Positions of one field's documents holding every word/character of the key."""
    lists: list[PosArray] = []
    for part in key.split(" "):
        if is_cjk_run(part):
            lists.extend(data.char_postings.get(ch, _EMPTY) for ch in set(part))
        else:
            lists.append(data.word_postings.get(part, _EMPTY))
    lists.sort(key=len)
    candidates = lists[0]
    for other in lists[1:]:
        if len(candidates) == 0:
            break
        candidates = np.intersect1d(candidates, other, assume_unique=True)
    return candidates


def _summary_weights(key: str, data: FieldIndex) -> tuple[PosArray, FloatArray]:
    """Summaries holding the key, and how central its first mention is there."""
    found = needle(key)
    candidates = _candidates(key, data)
    docs = list(map(data.docs.__getitem__, candidates.tolist()))
    at = np.fromiter(map(str.find, docs, repeat(found)), dtype=np.int64, count=len(docs))
    held = at >= 0
    lengths = np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
    lead = held & (at < np.maximum(LEAD_MIN_CHARS, LEAD_SHARE * lengths))
    weights = np.where(lead, TOPIC_LEAD_WEIGHT, TOPIC_SUMMARY_WEIGHT)
    later = np.flatnonzero(held & ~lead)
    again = map(
        str.find, [docs[i] for i in later.tolist()], repeat(found), (at[later] + 1).tolist()
    )
    repeated = later[np.fromiter(again, dtype=np.int64, count=len(later)) >= 0]
    weights[repeated] = TOPIC_SUMMARY_WEIGHT + TOPIC_REPEAT_BONUS
    return candidates[held].astype(np.int32), weights[held].astype(np.float64)


def _holding_docs(candidates: PosArray, docs: tuple[str, ...], found: str) -> PosArray:
    """The `candidates` whose document holds `found`."""
    texts = map(docs.__getitem__, candidates.tolist())
    held = np.fromiter(map(str.__contains__, texts, repeat(found)), np.bool_, len(candidates))
    kept: PosArray = candidates[held]
    return kept


@dataclass(frozen=True, slots=True)
class _Hits:
    """Where one term is found: sorted positions, the weight of the best
    place, and whether the title / the summary hold it."""

    positions: PosArray
    weights: FloatArray
    in_title: BoolArray
    in_summary: BoolArray

    def keep(self, mask: BoolArray) -> _Hits:
        return _Hits(
            self.positions[mask], self.weights[mask], self.in_title[mask], self.in_summary[mask]
        )


def _term_hits(term: Term, corpus: TopicCorpus) -> _Hits:
    title = _holding_docs(_candidates(term.key, corpus.title), corpus.title.docs, needle(term.key))
    summary, summary_weights = _summary_weights(term.key, corpus.summary)
    positions = sorted_union(title, summary).astype(np.int32)
    weights = np.zeros(len(positions), dtype=np.float64)
    in_summary = np.isin(positions, summary, assume_unique=True)
    weights[in_summary] = summary_weights
    in_title = np.isin(positions, title, assume_unique=True)
    weights[in_title] = TOPIC_TITLE_WEIGHT
    return _Hits(positions, weights * term.quality, in_title, in_summary)


def _counted_hits(
    topic: Topic, corpus: TopicCorpus, protected: frozenset[str], vocabulary: Vocabulary | None
) -> list[tuple[Term, _Hits]]:
    """Every term's hits that count: a weak alias's only in a title or beside
    another term of the topic."""
    within = _alias_scope(topic, vocabulary)
    if within is not None and vocabulary is not None:
        return _scoped_hits(topic, within, corpus, vocabulary)
    terms = topic_terms(topic, vocabulary)
    if topic.is_keyword:
        terms += [
            v for t in terms if t.quality == 1.0 for v in typed_corrections(t, corpus, protected)
        ]
    return _weak_kept([(term, _term_hits(term, corpus)) for term in terms], len(corpus))


def _alias_scope(topic: Topic, vocabulary: Vocabulary | None) -> Topic | None:
    """The vocabulary topic a keyword says an alias of (`resolve` keeps such
    text a keyword when the alias does not name the topic), else None."""
    if not topic.is_keyword or vocabulary is None:
        return None
    reading = alias_reading(topic.key, vocabulary)
    return None if reading is None else vocabulary.lookup(reading)


def _scoped_hits(
    keyword: Topic, topic: Topic, corpus: TopicCorpus, vocabulary: Vocabulary
) -> list[tuple[Term, _Hits]]:
    """A keyword saying an alias of `topic` (思维链 of reasoning): the topic's
    terms, but in a paper without the keyword's own concept (the alias and
    its bilingual expansions: 思维链, chain of thought) they count only as
    further terms, never as a place: such a paper is at most near, and the
    feedback of the keyword's clear matches decides it (a compositional-
    generalization paper is reasoning, not chain of thought). A weak alias
    with no other term of the topic beside it counts as a passing mention,
    in the title too: the keyword asks for part of the topic, and an
    ambiguous word alone ("Evaluating neuron interpretation methods" for
    "LLM evaluation") does not say that part."""
    said = np.zeros(len(corpus), dtype=np.bool_)
    # From the key (`resolve` keys every way of saying the alias alike), so
    # 强化学习 and "reinforcement learning" match the same papers.
    alias = alias_reading(keyword.key, vocabulary) or keyword.key
    for key, weight in expand_bilingual(alias, vocabulary):
        said[_term_hits(Term(key, key, weight), corpus).positions] = True
    terms = topic_terms(topic, vocabulary)
    found = _weak_kept([(term, _term_hits(term, corpus)) for term in terms], len(corpus))
    terms_found = np.zeros(len(corpus), dtype=np.int64)
    for _, hits in found:
        terms_found[hits.positions] += 1
    scoped: list[tuple[Term, _Hits]] = []
    for term, h in found:
        weights = h.weights * said[h.positions]
        if term.weak:
            alone = terms_found[h.positions] < 2
            weights = np.where(alone, np.minimum(weights, TOPIC_SUMMARY_WEIGHT), weights)
        scoped.append((term, _Hits(h.positions, weights, h.in_title, h.in_summary)))
    return scoped


def _weak_kept(found: list[tuple[Term, _Hits]], size: int) -> list[tuple[Term, _Hits]]:
    """The hits that count: a weak alias's only in a title or beside another
    term of the topic."""
    if not any(term.weak for term, _ in found):
        return found
    terms_found = np.zeros(size, dtype=np.int64)
    for _, hits in found:
        terms_found[hits.positions] += 1
    return [
        (term, hits.keep(hits.in_title | (terms_found[hits.positions] >= 2)) if term.weak else hits)
        for term, hits in found
    ]


def _scores(hits: Sequence[tuple[Term, _Hits]], size: int) -> FloatArray:
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


def _placed(hits: Sequence[tuple[Term, _Hits]]) -> list[Counted]:
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
    hits = _counted_hits(topic, corpus, protected, vocabulary)
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
    # A paper the feedback accepts gets the least match score: its words
    # alone said less than any other match's.
    score[refined.accepted] = RELEVANCE_THRESHOLD
    matched[refined.accepted] = True
    matched[refined.dropped] = False
    positions = _best_first(score, corpus.ids, np.flatnonzero(matched))
    near = np.flatnonzero((score > 0) & ~matched)
    if len(near) < NEAR_LIMIT:
        # Room left among the near papers: the closest to the profile.
        room = NEAR_LIMIT - len(near)
        close, close_scores = closest(score, corpus, refined.weights, room, indexed=indexed)
        score[close] = close_scores
        near = np.flatnonzero((score > 0) & ~matched)
    if len(near) > NEAR_LIMIT:
        # Every paper tied with the last one kept stays a candidate, so ties
        # go by paper id (as a merge of appended papers' matches does).
        least = np.partition(-score[near], NEAR_LIMIT - 1)[NEAR_LIMIT - 1]
        near = near[-score[near] <= least]
    near = _best_first(score, corpus.ids, near)[:NEAR_LIMIT]
    live = len(corpus) - len(corpus.dead)
    made = Profile(tuple(refined.weights.items()), refined.clear, live)
    made = frozen if frozen is not None else made
    ids = corpus.ids
    return TopicMatches(ids[positions], score[positions], ids[near], score[near], made)


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
    hits = _counted_hits(topic, corpus, protected, vocabulary)
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
