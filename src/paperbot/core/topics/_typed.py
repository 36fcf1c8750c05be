"""What a topic is searched for: its terms, and a typed keyword's words
corrected to corpus words one edit away (typo tolerance is for what users
type; papers' words are matched exactly)."""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import OSA

from paperbot.core.text import is_cjk_run
from paperbot.core.topics._corpus import TopicCorpus
from paperbot.core.topics._generic import keyword_terms
from paperbot.core.topics._keys import term_key
from paperbot.core.topics._vocabulary import Topic, Vocabulary

TYPO_QUALITY = 0.7
"""A hit through a corrected word of a keyword counts this much of an exact hit."""

TYPO_MIN_LENGTH = 7
"""Shorter typed words are never corrected: `merging`/`emerging`-style pairs
of real words are common among short words and rare among long ones."""


@dataclass(frozen=True, slots=True)
class Term:
    """One way a topic shows up in text: the key searched, and how it is told."""

    key: str
    shown: str
    quality: float
    weak: bool = False


def topic_terms(topic: Topic, vocabulary: Vocabulary | None) -> list[Term]:
    """A topic's names and aliases; a keyword and its bilingual expansions."""
    if topic.is_keyword:
        found = keyword_terms(topic.name, vocabulary)
        return [Term(key, topic.name if key == topic.key else key, w) for key, w in found]
    seen: dict[str, Term] = {}
    weak = set(topic.weak_aliases)
    for text in topic.terms:
        key = term_key(text)
        if key and key not in seen:
            seen[key] = Term(key, text, 1.0, text in weak)
    # A narrower topic's strong terms say this one too (speculative decoding
    # is efficient inference); its weak ones need its own context.
    below = vocabulary.narrower(topic.key) if vocabulary is not None else ()
    for other in below:
        for text in other.terms:
            key = term_key(text)
            if key and key not in seen and text not in other.weak_aliases:
                seen[key] = Term(key, text, 1.0)
    return list(seen.values())


def is_typo_of(word: str, candidate: str, protected: frozenset[str] = frozenset()) -> bool:
    """True when typed `word` is taken for a misspelling of corpus word `candidate`.

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


def typed_corrections(term: Term, corpus: TopicCorpus, protected: frozenset[str]) -> list[Term]:
    """Variants of a typed keyword with one long word that no paper uses
    replaced by a corpus word one (or two) edits away."""
    variants: list[Term] = []
    parts = term.key.split(" ")
    for index, word in enumerate(parts):
        if len(word) < TYPO_MIN_LENGTH or is_cjk_run(word) or _in_corpus(word, corpus):
            continue
        budget = 2 if len(word) >= 12 else 1
        for name in ("title", "summary"):
            for candidate, _, _ in process.extract(
                word, corpus.field(name).words, scorer=OSA.distance, score_cutoff=budget, limit=None
            ):
                if is_typo_of(word, candidate, protected):
                    key = " ".join([*parts[:index], candidate, *parts[index + 1 :]])
                    shown = f"{key} ≈ {term.shown}"
                    variants.append(Term(key, shown, TYPO_QUALITY * term.quality))
    return list({v.key: v for v in variants}.values())


def _in_corpus(word: str, corpus: TopicCorpus) -> bool:
    return word in corpus.title.word_postings or word in corpus.summary.word_postings
