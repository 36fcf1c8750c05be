"""Matching topics to papers: batch scores over a `TopicCorpus`, explanations, coverage.

Batch matching (`match_topic`) narrows candidates with per-field postings
(Latin word -> papers, CJK character -> papers) and verifies each candidate
with one substring test, so a topic over 100,000 papers costs milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import OSA

from paperbot.core.text import is_cjk_run
from paperbot.core.topics._corpus import (
    FIELDS,
    FieldIndex,
    FloatArray,
    IntArray,
    PosArray,
    TopicCorpus,
    build_corpus,
)
from paperbot.core.topics._keys import document, needle, term_key
from paperbot.core.topics._vocabulary import Topic, Vocabulary

TOPIC_TITLE_WEIGHT = 3.0
TOPIC_SUMMARY_WEIGHT = 1.0
TOPIC_EXTRA_TERM_WEIGHT = 0.25
TOPIC_EXTRA_TERMS_COUNTED = 3
MAX_TOPIC_SCORE = (
    TOPIC_TITLE_WEIGHT + TOPIC_SUMMARY_WEIGHT + TOPIC_EXTRA_TERM_WEIGHT * TOPIC_EXTRA_TERMS_COUNTED
)
"""The best score `match_topic` can give: exact hits in title and summary plus
every extra term counted. Dividing by it puts topic scores on a [0, 1] scale."""

TYPO_QUALITY = 0.7
"""A hit through a misspelt word counts this much of an exact hit."""

TYPO_MIN_LENGTH = 7
"""Shorter words are never typo-matched: `merging`/`emerging`-style pairs of
real words are common among short words and rare among long ones."""

_EMPTY: PosArray = np.zeros(0, dtype=np.int32)


@dataclass(frozen=True, slots=True)
class _Term:
    """One way a topic shows up in text: the key searched, and how it is told."""

    key: str
    shown: str
    quality: float


def _topic_terms(topic: Topic) -> list[_Term]:
    seen: dict[str, _Term] = {}
    for text in topic.terms:
        key = term_key(text)
        if key and key not in seen:
            seen[key] = _Term(key, text, 1.0)
    return list(seen.values())


def is_typo_of(word: str, candidate: str, protected: frozenset[str] = frozenset()) -> bool:
    """True when `candidate` is treated as a misspelling of vocabulary word `word`.

    Conservative on purpose: long words only, same first letter, one edit
    (two for words of 12+ letters; a swap of neighbours is one edit), and
    never a word the vocabulary itself uses.
    """
    if len(word) < TYPO_MIN_LENGTH or candidate == word or candidate in protected:
        return False
    if is_cjk_run(candidate) or candidate[:1] != word[:1]:
        return False
    budget = 2 if len(word) >= 12 else 1
    return OSA.distance(word, candidate, score_cutoff=budget) <= budget


def _typo_terms(term: _Term, words: Sequence[str], protected: frozenset[str]) -> list[_Term]:
    """Variants of a term with one of its long words replaced by a misspelling found in `words`."""
    variants: list[_Term] = []
    parts = term.key.split(" ")
    for index, word in enumerate(parts):
        if len(word) < TYPO_MIN_LENGTH or is_cjk_run(word):
            continue
        budget = 2 if len(word) >= 12 else 1
        for candidate, _, _ in process.extract(
            word, words, scorer=OSA.distance, score_cutoff=budget, limit=None
        ):
            if is_typo_of(word, candidate, protected):
                key = " ".join([*parts[:index], candidate, *parts[index + 1 :]])
                variants.append(_Term(key, f"{key} ≈ {term.shown}", TYPO_QUALITY))
    return variants


def _field_hits(term: _Term, data: FieldIndex) -> PosArray:
    """Positions of the documents of one field that contain the term."""
    lists: list[PosArray] = []
    for part in term.key.split(" "):
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
    found = needle(term.key)
    docs = data.docs
    return np.fromiter((p for p in candidates.tolist() if found in docs[p]), dtype=np.int64)


@dataclass(frozen=True, slots=True)
class TopicMatches:
    """Papers matching one topic, best first: parallel `ids` and `scores`."""

    ids: IntArray
    scores: FloatArray

    def __len__(self) -> int:
        return len(self.ids)

    @classmethod
    def empty(cls) -> TopicMatches:
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))


def match_topic(
    topic: Topic, corpus: TopicCorpus, protected: frozenset[str] = frozenset()
) -> TopicMatches:
    """Every paper of the corpus matching the topic, with scores, best first.

    score = 3 x (title hit) + 1 x (summary hit) + 0.25 per extra distinct
    term (up to 3), where a hit through a misspelling counts 0.7; at most
    `MAX_TOPIC_SCORE`. Ties are broken by paper id. Vocabulary topics
    tolerate misspelt long words in the papers; keywords match exactly
    (after folding). Pass `vocabulary.term_words()` as `protected` so one
    vocabulary word is never taken for a misspelling of another.
    """
    n = len(corpus)
    best = {name: np.zeros(n, dtype=np.float64) for name in FIELDS}
    distinct = np.zeros(n, dtype=np.int64)
    for term in _topic_terms(topic):
        variants = [term]
        if not topic.is_keyword:
            for name in FIELDS:
                variants += _typo_terms(term, corpus.field(name).words, protected)
        touched = _mark_hits(variants, corpus, best)
        distinct[touched] += 1
    score = TOPIC_TITLE_WEIGHT * best["title"] + TOPIC_SUMMARY_WEIGHT * best["summary"]
    score += TOPIC_EXTRA_TERM_WEIGHT * np.clip(distinct - 1, 0, TOPIC_EXTRA_TERMS_COUNTED)
    positions = np.flatnonzero(distinct > 0)
    order = np.lexsort((corpus.ids[positions], -score[positions]))
    positions = positions[order]
    return TopicMatches(corpus.ids[positions], score[positions])


def _mark_hits(variants: list[_Term], corpus: TopicCorpus, best: dict[str, FloatArray]) -> PosArray:
    """Raise `best[field]` to each variant's quality where it is found; the
    positions found in either field by any variant."""
    touched = _EMPTY
    for variant in variants:
        for name in FIELDS:
            hits = _field_hits(variant, corpus.field(name))
            if len(hits):
                np.maximum.at(best[name], hits, variant.quality)
                touched = np.union1d(touched, hits)
    return touched


def explain(
    topic: Topic, title: str, summary: str, protected: frozenset[str] = frozenset()
) -> tuple[str, ...]:
    """Why a paper matches a topic: `("title: scaling law", "summary: 缩放定律")`.

    One line per field and term found, title first; empty when it does not
    match. Agrees with `match_topic` (same keys, same misspelling rule).
    """
    found: list[str] = []
    for name, text in (("title", title), ("summary", summary)):
        doc = document(text)
        words = tuple({w for w in doc.split() if not is_cjk_run(w)})
        for term in _topic_terms(topic):
            shown = _shown_in(term, doc, words, topic.is_keyword, protected)
            if shown is not None:
                found.append(f"{name}: {shown}")
    return tuple(found)


def _shown_in(
    term: _Term, doc: str, words: tuple[str, ...], exact_only: bool, protected: frozenset[str]
) -> str | None:
    """How the term shows up in a padded document key, or None when it does not."""
    if needle(term.key) in doc:
        return term.shown
    if exact_only:
        return None
    typos = _typo_terms(term, words, protected)
    typo = next((v for v in typos if needle(v.key) in doc), None)
    return None if typo is None else typo.shown


def score_paper(
    topic: Topic, title: str, summary: str, protected: frozenset[str] = frozenset()
) -> float:
    """The `match_topic` score of one paper (0 when it does not match)."""
    corpus = build_corpus([(0, title, summary)])
    matches = match_topic(topic, corpus, protected)
    return float(matches.scores[0]) if len(matches) else 0.0


@dataclass(frozen=True, slots=True)
class Coverage:
    """How the vocabulary covers a corpus."""

    papers: int
    counts: tuple[tuple[Topic, int], ...]
    unmatched_ids: tuple[int, ...]

    @property
    def covered_share(self) -> float:
        return 1.0 - len(self.unmatched_ids) / self.papers if self.papers else 0.0


def coverage(vocabulary: Vocabulary, corpus: TopicCorpus) -> Coverage:
    """Per topic, how many papers match; and which papers match no topic."""
    protected = vocabulary.term_words()
    matched = np.zeros(len(corpus), dtype=bool)
    counts: list[tuple[Topic, int]] = []
    position = {int(pid): i for i, pid in enumerate(corpus.ids.tolist())}
    for topic in vocabulary.topics:
        found = match_topic(topic, corpus, protected)
        counts.append((topic, len(found)))
        matched[[position[int(pid)] for pid in found.ids.tolist()]] = True
    unmatched = tuple(int(pid) for pid in corpus.ids[~matched].tolist())
    return Coverage(len(corpus), tuple(counts), unmatched)
