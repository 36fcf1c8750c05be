"""Which papers hold which profile terms, read in one pass over a few papers.

The feedback of a whole corpus reads each profile term's papers from the
postings (`_feedback._holding`), a few numpy calls per term and topic. For
the papers a page appends (decided against frozen profiles, every topic in
turn) those calls are the whole cost, so the part's terms are indexed once
(term -> papers holding it, as `_holding` tells: a Latin word of the title
or summary, a CJK pair or single character inside a CJK run) and every
topic's feedback is a handful of lookups.
"""

from __future__ import annotations

import weakref

import numpy as np
import numpy.typing as npt

from paperbot.core.topics._corpus import FloatArray, TopicCorpus
from paperbot.core.topics._keys import is_cjk_token

PosList = npt.NDArray[np.intp]
_INDEX: dict[int, tuple[weakref.ref[TopicCorpus], dict[str, PosList]]] = {}
"""Per corpus (by identity: a corpus is immutable), its term index."""


def term_postings(corpus: TopicCorpus) -> dict[str, PosList]:
    """Every term a paper of the corpus holds -> ascending positions."""
    cached = _INDEX.get(id(corpus))
    if cached is not None and cached[0]() is corpus:
        return cached[1]
    found: dict[str, list[int]] = {}
    for position, (title, summary) in enumerate(
        zip(corpus.title.docs, corpus.summary.docs, strict=True)
    ):
        terms: set[str] = set()
        for token in f"{title} {summary}".split():
            if is_cjk_token(token):
                terms.update(token)
                terms.update(token[i : i + 2] for i in range(len(token) - 1))
            else:
                terms.add(token)
        for term in terms:
            found.setdefault(term, []).append(position)
    index = {term: np.asarray(positions, dtype=np.intp) for term, positions in found.items()}
    key = id(corpus)
    gone = weakref.ref(corpus, lambda _: _INDEX.pop(key, None))
    _INDEX[key] = (gone, index)
    return index


def indexed_feedback(corpus: TopicCorpus, weights: dict[str, float]) -> FloatArray:
    """`_feedback.feedback` of every paper (the same sums in the same order)."""
    index = term_postings(corpus)
    held = np.zeros(len(corpus), dtype=np.float64)
    total = sum(weights.values())
    if total <= 0:
        return held
    for term, weight in weights.items():
        held[index.get(term, _NONE)] += weight
    result: FloatArray = held / total
    return result


def indexed_closeness(corpus: TopicCorpus, weights: dict[str, float]) -> FloatArray:
    """The feedback `_feedback.closest` confirms, of every paper, summed as
    it sums it: Latin words' shares first, then CJK pairs'."""
    index = term_postings(corpus)
    total = sum(weights.values())
    latin = np.zeros(len(corpus), dtype=np.float64)
    pairs = np.zeros(len(corpus), dtype=np.float64)
    if total <= 0:
        return latin
    for term, weight in weights.items():
        (pairs if is_cjk_token(term) else latin)[index.get(term, _NONE)] += weight / total
    result: FloatArray = latin + pairs
    return result


_NONE: PosList = np.zeros(0, dtype=np.intp)
