"""A topic's term used in another topic's sense: "Image Tokenizer", "Speech Tokenization".

A title names what a paper is about, and an English compound's last word is
qualified by the words before it: when every title occurrence of a topic's
term is preceded by a name or alias of *another* vocabulary topic ("image"
of vision, "speech" of speech and audio), the title says that other domain's
kind of the thing (an image tokenizer, not a text one). One sense per
discourse: the paper's other mentions of the same concept (the term, its
translations in the same `[[concept]]` table: tokenizer, 分词器) are read in
that sense too. Such a paper is borderline unless it also holds a term of
the topic outside that concept; its score is capped at the relevance
threshold, so the topic's clear matches decide it (`_feedback.refine`
keeps it when it shares enough of their words).

Only strong terms are read this way: a weak alias is a general word ("image",
"decoding") that a qualifier narrows to a kind of the same thing ("microscopy
image" is still an image), and it already needs support to count. Only Latin
words (titles are English) and only the words the vocabulary itself names:
no list of domains. Keywords outside the vocabulary are left alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from paperbot.core.arrays import distinct
from paperbot.core.text import is_cjk_run
from paperbot.core.topics._corpus import PosArray, TopicCorpus
from paperbot.core.topics._keys import needle
from paperbot.core.topics._typed import Term
from paperbot.core.topics._vocabulary import Topic, Vocabulary

Counted = tuple[Term, PosArray, PosArray]
"""A term, the papers where it counts (weight > 0), and those of them whose title holds it."""


def other_sense(
    topic: Topic, counted: Sequence[Counted], corpus: TopicCorpus, vocabulary: Vocabulary | None
) -> PosArray:
    """Papers whose evidence for `topic` is all one concept that their title
    says only in another vocabulary topic's sense (see the module doc)."""
    found: list[PosArray] = [np.zeros(0, dtype=np.int32)]
    if vocabulary is None or topic.is_keyword:
        return found[0]
    reader = _Reader(topic, vocabulary)
    docs = corpus.title.docs
    for term, _, in_title in counted:
        if len(in_title) == 0 or not _readable(term):
            continue
        same = _concept(term.key, vocabulary)
        alone = _alone(same, in_title, counted, len(corpus))
        qualified, key, seek = reader.qualified, term.key, needle(term.key)
        kept = [p for p in alone.tolist() if qualified(docs[p], key, seek)]
        # The concept's other terms in the same titles must be read so too.
        for other, _, title in counted:
            if other.key in same and other is not term and len(title) and _readable(other):
                held = np.isin(kept, title)
                o_key, o_seek = other.key, needle(other.key)
                kept = [
                    p
                    for p, h in zip(kept, held.tolist(), strict=True)
                    if not h or qualified(docs[p], o_key, o_seek)
                ]
        found.append(np.array(kept, dtype=np.int32))
    result: PosArray = distinct(np.concatenate(found))
    return result


def _readable(term: Term) -> bool:
    """Strong Latin terms only (see the module doc)."""
    return not term.weak and not is_cjk_run(term.key[0])


def _alone(same: set[str], in_title: PosArray, counted: Sequence[Counted], size: int) -> PosArray:
    """The papers of `in_title` with no evidence outside the term's concept
    and no title term of the concept that cannot be read (weak, Chinese):
    array steps, so only these have their titles read."""
    outside = np.zeros(size, dtype=np.bool_)
    for other, positions, title in counted:
        if other.key not in same:
            outside[positions] = True
        elif not _readable(other):
            outside[title] = True
    alone: PosArray = in_title[~outside[in_title]]
    return alone


def _concept(key: str, vocabulary: Vocabulary) -> set[str]:
    """The key and every key sharing a `[[concept]]` table with it (its
    translations say the same thing)."""
    same = {key}
    for keys in vocabulary.concept_keys:
        if key in keys:
            same.update(keys)
    return same


class _Reader:
    """Reads the words before a topic's term in title keys."""

    def __init__(self, topic: Topic, vocabulary: Vocabulary) -> None:
        self.own = {topic.key} | {t.key for t in vocabulary.narrower(topic.key)}
        self.named = vocabulary.term_keys
        # A qualifier ends with the last word of some term: most words
        # before a term are rejected by one set lookup.
        self.last_words = vocabulary.term_last_words

    def qualified(self, doc: str, key: str, found: str) -> bool:
        """Whether every occurrence of a Latin term (`key`, its `needle`
        `found`) in the padded title key `doc` follows a name or alias of
        another topic (`at`: the space before it, `start`: the one before
        the word before it)."""
        last_words = self.last_words
        at = doc.find(found)
        while at >= 0:
            start = doc.rfind(" ", 0, at)
            if start < 0 or doc[start + 1 : at] not in last_words:
                return False
            before = doc.rfind(" ", 0, start)
            if not (
                self._names_other(doc[start + 1 : at], key)
                or (before >= 0 and self._names_other(doc[before + 1 : at], key))
            ):
                return False
            at = doc.find(found, at + 1)
        return True

    def _names_other(self, modifier: str, key: str) -> bool:
        """`modifier` is a term of another topic, and with the term it is no
        term of this one ("speculative decoding" is the topic's own); a
        narrower topic's terms are this one's too (`Topic.broader`)."""
        named = self.named.get(modifier)
        if named is None or named.key in self.own:
            return False
        joined = self.named.get(f"{modifier} {key}")
        return joined is None or joined.key not in self.own
