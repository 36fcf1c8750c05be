"""A second opinion for long queries, fused with the ranking by reciprocal rank.

A question or a paraphrase ("a chatbot figures out by itself when to call a
calculator") rarely says the words of the title it means. Stage 2 scores
each query term by its best match, so a paper saying many of the query's
words in its summary, each once, can lose to one whose title says one of
them. The second signal is the TF-IDF cosine between the query (its words
and their alternatives in the other language, at the weights stage 1 gave
them) and each candidate's whole text (title and summary: stemmed Latin
words and Chinese character bigrams, so mixed-language text needs no
segmentation). The two orders are fused by reciprocal rank (Cormack et al.,
2009), which needs no calibration between their scores. Short queries (a
title fragment, a name, a typo) keep stage 2's order: their one or two
words are what they mean, and the cosine has no typo tolerance.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from paperbot.core.search._grams import (
    BIGRAM,
    CJK_BITS,
    TAG_SHIFT,
    chunk_word_keys,
    cjk_bigrams,
    word_key,
)
from paperbot.core.search._index import SearchIndex
from paperbot.core.search._match import FieldText
from paperbot.core.search._query import Term
from paperbot.core.search._weights import FUSION_K, FUSION_MIN_TERMS, FUSION_WEIGHT
from paperbot.core.text import is_cjk_char, latin_words, tokens

_BIGRAM_TAG = BIGRAM << TAG_SHIFT
_DOC_SHIFT = 48
_GRAM_MASK = (1 << _DOC_SHIFT) - 1


def fused_order(
    index: SearchIndex,
    positions: Sequence[int],
    terms: Sequence[Term],
    weights: Sequence[float],
    fields: Sequence[tuple[FieldText, FieldText]] | None = None,
) -> list[int]:
    """A permutation of `positions` (index positions in stage 2's order,
    best first): that order fused with the cosine's (`fuse_ranks`). The
    identity for queries of fewer than `FUSION_MIN_TERMS` terms. `fields`:
    the papers' title and summary as stage 2 prepared them (their words
    are reused), else read from the index."""
    if len(terms) < FUSION_MIN_TERMS or len(positions) < 2:
        return list(range(len(positions)))
    return fuse_ranks(query_cosines(index, positions, terms, weights, fields))


def fuse_ranks(cosines: NDArray[np.float64], weight: float = FUSION_WEIGHT) -> list[int]:
    """Reciprocal rank fusion of a given order (0, 1, 2 ...) with the order of
    `cosines` (one per item, in the given order): each item scores
    1 / (K + its rank) + weight / (K + its cosine rank), best first. Equal
    cosines (papers the cosine finds nothing in) keep the given order."""
    ranks = 1.0 / (FUSION_K + 1 + np.arange(len(cosines), dtype=np.float64))
    fused = ranks.copy()
    fused[np.argsort(-cosines, kind="stable")] += weight * ranks
    order: list[int] = np.argsort(-fused, kind="stable").tolist()
    return order


def query_cosines(
    index: SearchIndex,
    positions: Sequence[int],
    terms: Sequence[Term],
    weights: Sequence[float],
    fields: Sequence[tuple[FieldText, FieldText]] | None = None,
) -> NDArray[np.float64]:
    """Per paper, the cosine between the query's weighted grams and its text.

    A query gram counts with the weight of its term (an alternative's gram
    with that times what the alternative counts, `Term.weight_of`), the most
    any term gives it; a paper's gram by its IDF and 1 + log of how often the
    text says it (a Latin word: once)."""
    query = query_grams(terms, weights)
    out = np.zeros(len(positions), dtype=np.float64)
    if not query or not positions:
        return out
    if fields is None:
        fields = [(FieldText(index.titles[p]), FieldText(index.summaries[p])) for p in positions]
    texts = [t.text + " " + s.text for t, s in fields]
    # A space between them: the text's words are the title's, then the summary's.
    keys, docs, tf = _paper_grams(texts, [t.words + s.words for t, s in fields])
    if len(keys) == 0:
        return out
    unique, inverse = np.unique(keys, return_inverse=True)
    weight = (1.0 + np.log(tf)) * _idf(index, unique)[inverse]
    norms = np.sqrt(np.bincount(docs, weights=weight * weight, minlength=len(texts)))
    qkeys = np.fromiter(query, dtype=np.int64, count=len(query))
    qweights = np.fromiter(query.values(), dtype=np.float64, count=len(query))
    order = np.argsort(qkeys)
    qkeys, qweights = qkeys[order], qweights[order]
    at = np.minimum(np.searchsorted(qkeys, keys), len(qkeys) - 1)
    shared = np.where(qkeys[at] == keys, qweights[at] * weight, 0.0)
    dot = np.bincount(docs, weights=shared, minlength=len(texts))
    np.divide(dot, norms, out=out, where=norms > 0)
    return out


def query_grams(terms: Sequence[Term], weights: Sequence[float]) -> dict[int, float]:
    """The query's grams (stemmed Latin words, CJK bigrams) with their weights."""
    query: dict[int, float] = {}
    for term, weight in zip(terms, weights, strict=True):
        for text in (term.text, *term.alternatives):
            share = weight * (1.0 if text == term.text else term.weight_of(text))
            for key in text_grams(text):
                query[key] = max(query.get(key, 0.0), share)
    return query


def text_grams(text: str) -> set[int]:
    """A normalised text's stemmed Latin words and CJK bigrams (the keys
    `_paper_grams` gives a paper's text; a lone CJK character gives none)."""
    keys: set[int] = set()
    for tok in tokens(text):
        if is_cjk_char(ord(tok[0])):
            keys.update(
                _BIGRAM_TAG | (ord(a) << CJK_BITS) | ord(b) for a, b in itertools.pairwise(tok)
            )
        else:
            keys.update(word_key(w) for w in latin_words(tok))
    return keys


def _paper_grams(
    texts: Sequence[str], said: Sequence[Sequence[str]]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """(gram, text, count) of every distinct gram of every text; `said`:
    each text's Latin words (`latin_words`)."""
    bigrams, bigram_docs = cjk_bigrams(texts)
    words = _word_keys(list(itertools.chain.from_iterable(said)))
    word_docs = np.repeat(np.arange(len(texts), dtype=np.int64), [len(ws) for ws in said])
    keys = np.concatenate([bigrams, words])
    docs = np.concatenate([bigram_docs.astype(np.int64), word_docs])
    # Gram keys stay below bit 43 (`_grams`): the text's number goes above,
    # so one sort of plain integers counts each (text, gram) pair.
    pairs, counts = np.unique((docs << _DOC_SHIFT) | keys, return_counts=True)
    return pairs & _GRAM_MASK, pairs >> _DOC_SHIFT, counts.astype(np.float64)


_WORD_KEYS: dict[str, int] = {}
_WORD_KEYS_HELD = 65536


def _word_keys(words: list[str]) -> NDArray[np.int64]:
    """`word_key` of each word, remembered across queries (a long query
    reads some hundred texts' words, mostly the same ones); the words are
    forgotten once past `_WORD_KEYS_HELD`."""
    if len(_WORD_KEYS) > _WORD_KEYS_HELD:
        _WORD_KEYS.clear()
    return chunk_word_keys(words, _WORD_KEYS)


def _idf(index: SearchIndex, keys: NDArray[np.int64]) -> NDArray[np.float64]:
    """log(1 + n / df), df counting a paper once per field that holds the gram."""
    df = np.zeros(len(keys), dtype=np.int64)
    for field in (index.title, index.summary):
        pos = field.lookup(keys)
        df[pos >= 0] += field.df(pos[pos >= 0])
    idf: NDArray[np.float64] = np.log1p(max(index.size, 1) / np.maximum(df, 1))
    return idf
