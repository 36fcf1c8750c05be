"""Which of a query's candidates hold a word or a phrase, read from the
postings where the field's text need not be read (stage 2)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from paperbot.core.search._grams import word_key
from paperbot.core.search._index import FieldIndex, SearchIndex
from paperbot.core.search._match import FieldSet, contains_phrase, is_plain_phrase, term_parts


def has_word(field: FieldIndex, cands: NDArray[np.int64], word: str) -> NDArray[np.bool_]:
    """Per candidate: does the field hold this (stemmed) word? From the postings."""
    at = int(field.lookup(np.array([word_key(word)], dtype=np.int64))[0])
    if at < 0:
        return np.zeros(len(cands), dtype=np.bool_)
    docs = field.docs[field.indptr[at] : field.indptr[at + 1]]
    where = np.minimum(np.searchsorted(docs, cands), len(docs) - 1)
    return np.asarray(docs[where] == cands, dtype=np.bool_)


def holding(
    index: SearchIndex, cands: NDArray[np.int64], alias: str, sets: tuple[FieldSet, FieldSet]
) -> tuple[set[int], set[int]]:
    """The candidates whose title, and those whose summary, hold the alias
    (`contains_phrase`): CJK by plain containment in all fields at once,
    Latin from the postings (`_holding_phrase`)."""
    if is_plain_phrase(alias):
        return sets[0].containing(alias), sets[1].containing(alias)
    return (
        _holding_phrase(index.title, cands, alias, sets[0]),
        _holding_phrase(index.summary, cands, alias, sets[1]),
    )


def _holding_phrase(
    field: FieldIndex, cands: NDArray[np.int64], alias: str, fields: FieldSet
) -> set[int]:
    """The candidates whose field holds the Latin alias as whole words
    (`phrase_match`): a word's from the postings; a phrase's where the
    postings hold each of its words, then in the text."""
    parts = term_parts(alias)
    if not parts:
        return set()
    held = has_word(field, cands, parts[0])
    for part in parts[1:]:
        held &= has_word(field, cands, part)
    found = np.flatnonzero(held).tolist()
    if len(parts) == 1:
        return set(found)
    return {i for i in found if contains_phrase(fields.fields[i], alias)}
