"""Where a topic's terms are found in the papers, and which finds count.

Per term, the papers holding it and the weight of its best place (title,
summary lead, a later mention; `_term_hits`), found through per-field
postings and verified with one substring test each. Which hits count
(`counted_hits`): a weak alias's only in a title or beside another term of
the topic; for a keyword saying an alias narrower than its topic (思维链 of
reasoning), the topic's terms only in papers that say the keyword
(`_saying`), which `_matching` also keeps the feedback to.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import repeat

import numpy as np
import numpy.typing as npt

from paperbot.core.arrays import sorted_union
from paperbot.core.text import is_cjk_run
from paperbot.core.topics._bilingual import concept_parts
from paperbot.core.topics._corpus import FieldIndex, FloatArray, PosArray, TopicCorpus
from paperbot.core.topics._generic import alias_reading
from paperbot.core.topics._keys import needle
from paperbot.core.topics._typed import Term, topic_terms, typed_corrections
from paperbot.core.topics._vocabulary import Topic, Vocabulary

BoolArray = npt.NDArray[np.bool_]

TOPIC_TITLE_WEIGHT = 3.0
TOPIC_LEAD_WEIGHT = 2.0
TOPIC_SUMMARY_WEIGHT = 1.0
TOPIC_REPEAT_BONUS = 0.5
"""Added to a mention outside the lead that the summary makes more than once."""

LEAD_SHARE = 0.35
LEAD_MIN_CHARS = 40
"""The lead of a summary: its first `LEAD_SHARE` (at least `LEAD_MIN_CHARS`
characters of its key), where a summary says what the paper is about."""

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
class Hits:
    """Where one term is found: sorted positions, the weight of the best
    place, and whether the title / the summary hold it."""

    positions: PosArray
    weights: FloatArray
    in_title: BoolArray
    in_summary: BoolArray

    def keep(self, mask: BoolArray) -> Hits:
        return Hits(
            self.positions[mask], self.weights[mask], self.in_title[mask], self.in_summary[mask]
        )


def _term_hits(term: Term, corpus: TopicCorpus) -> Hits:
    title = _holding_docs(_candidates(term.key, corpus.title), corpus.title.docs, needle(term.key))
    summary, summary_weights = _summary_weights(term.key, corpus.summary)
    positions = sorted_union(title, summary).astype(np.int32)
    weights = np.zeros(len(positions), dtype=np.float64)
    in_summary = np.isin(positions, summary, assume_unique=True)
    weights[in_summary] = summary_weights
    in_title = np.isin(positions, title, assume_unique=True)
    weights[in_title] = TOPIC_TITLE_WEIGHT
    return Hits(positions, weights * term.quality, in_title, in_summary)


@dataclass(frozen=True, slots=True)
class CountedHits:
    """Every term's hits that count, and, for a keyword within a topic, the
    papers saying the keyword (None: any paper may match)."""

    hits: list[tuple[Term, Hits]]
    saying: BoolArray | None = None


def counted_hits(
    topic: Topic, corpus: TopicCorpus, protected: frozenset[str], vocabulary: Vocabulary | None
) -> CountedHits:
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
    return CountedHits(
        _weak_kept([(term, _term_hits(term, corpus)) for term in terms], len(corpus))
    )


def _alias_scope(topic: Topic, vocabulary: Vocabulary | None) -> Topic | None:
    """The vocabulary topic a keyword says an alias of (`resolve` keeps such
    text a keyword when the alias does not name the topic), else None."""
    if not topic.is_keyword or vocabulary is None:
        return None
    reading = alias_reading(topic.key, vocabulary)
    return None if reading is None else vocabulary.lookup(reading)


def _scoped_hits(
    keyword: Topic, topic: Topic, corpus: TopicCorpus, vocabulary: Vocabulary
) -> CountedHits:
    """A keyword saying an alias of `topic` (思维链 of reasoning): the topic's
    terms, but in a paper without the keyword's own concept (the alias and
    its bilingual expansions: 思维链, chain of thought) they count only as
    further terms, never as a place: such a paper is at most near (a
    compositional-generalization paper is reasoning, not chain of thought),
    and `_matching` lets no feedback accept it (`saying`). Another weak
    alias with no other term of the topic beside it counts as a passing
    mention, in the title too: the keyword asks for part of the topic, and
    an ambiguous word alone ("judge" in a title, for the keyword 数据污染)
    does not say that part. The keyword's own terms are never weak: the
    reader typed them, so AdamW in a summary's lead says "AdamW" though it
    is only a weak alias of Optimizers."""
    # From the key (`resolve` keys every way of saying the alias alike), so
    # 强化学习 and "reinforcement learning" match the same papers.
    own, _ = concept_parts(alias_reading(keyword.key, vocabulary) or keyword.key, vocabulary)
    terms = [
        replace(t, weak=False) if t.weak and t.key in own else t
        for t in topic_terms(topic, vocabulary)
    ]
    said = _saying(own, {term.key for term in terms}, corpus, vocabulary)
    found = _weak_kept([(term, _term_hits(term, corpus)) for term in terms], len(corpus))
    terms_found = np.zeros(len(corpus), dtype=np.int64)
    for _, hits in found:
        terms_found[hits.positions] += 1
    scoped: list[tuple[Term, Hits]] = []
    for term, h in found:
        weights = h.weights * said[h.positions]
        if term.weak:
            alone = terms_found[h.positions] < 2
            weights = np.where(alone, np.minimum(weights, TOPIC_SUMMARY_WEIGHT), weights)
        scoped.append((term, Hits(h.positions, weights, h.in_title, h.in_summary)))
    return CountedHits(scoped, said)


def _saying(
    whole: set[str], topic_keys: set[str], corpus: TopicCorpus, vocabulary: Vocabulary
) -> BoolArray:
    """Per paper, whether it says the alias: one of the terms that say all
    of it (`whole`: its bilingual concept), or, for any of those, every part
    that says more than the topic does (约束解码: 约束, constraint; 解码 is the
    decoding topic itself, so "linear attention" is not said by every paper
    about attention). Parts are read from every form, since a concept may
    cover half of the Chinese term and less of the English one."""
    said = _holding_any(whole, corpus)
    for form in whole:
        _, parts = concept_parts(form, vocabulary)
        narrowing = [part for part in parts if part.isdisjoint(topic_keys)]
        if narrowing:
            every = np.ones(len(corpus), dtype=np.bool_)
            for part in narrowing:
                every &= _holding_any(part, corpus)
            said |= every
    return said


def _holding_any(keys: set[str], corpus: TopicCorpus) -> BoolArray:
    """Per paper, whether its title or summary holds one of `keys`."""
    held = np.zeros(len(corpus), dtype=np.bool_)
    for key in keys:
        held[_term_hits(Term(key, key, 1.0), corpus).positions] = True
    return held


def _weak_kept(found: list[tuple[Term, Hits]], size: int) -> list[tuple[Term, Hits]]:
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
