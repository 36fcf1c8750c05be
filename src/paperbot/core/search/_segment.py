"""Cutting an unknown Chinese run of a query into the words the corpus uses.

`大模型训练会出现` is no word of any summary: kept whole, it is one term
whose bigrams' mean IDF makes it heavy, and a paper must hold it all to
match it in stage 2. Cut into 大模型 + 训练 + 会出现, each piece weighs by
its own document frequency. A piece is a 2-4-character n-gram in at least
`MIN_PIECE_DF` summaries, neither starting nor ending with a particle;
single characters left over (用, 的) are grammar and are dropped.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from paperbot.core.search._grams import BIGRAM, CJK_BITS, TAG_SHIFT
from paperbot.core.search._index import SearchIndex
from paperbot.core.search._query import Term
from paperbot.core.search._words import CJK_PARTICLES, is_question_word
from paperbot.core.text import is_cjk_run

# A piece the summaries say at least this often is a word of the corpus.
MIN_PIECE_DF = 2
MAX_PIECE = 4
# Runs shorter than this are left as they are (a two-character word).
MIN_RUN = 4
# Papers whose text is read to count a longer n-gram.
MAX_CHECKED = 64


def split_unknown_runs(index: SearchIndex, terms: tuple[Term, ...]) -> tuple[Term, ...]:
    """The terms with every unknown Chinese run cut into corpus words; a
    run the summaries hold whole, or one with aliases, stays."""
    out: list[Term] = []
    for term in terms:
        pieces = _pieces(index, term)
        out.extend(replace(term, text=p) for p in pieces)
    return tuple(out) if out else terms


def _pieces(index: SearchIndex, term: Term) -> list[str]:
    text = term.text
    if term.alternatives or not is_cjk_run(text) or len(text) < MIN_RUN:
        return [text]
    counts = _Counts(index)
    if counts.df(text) >= MIN_PIECE_DF:
        return [text]
    words = [w for w in _best_cut(text, counts) if not _is_grammar(w)]
    return words or [text]


def _is_grammar(word: str) -> bool:
    return len(word) == 1 or is_question_word(word) or all(c in CJK_PARTICLES for c in word)


def _may_be_word(piece: str) -> bool:
    """A piece of two or more characters not starting or ending with a
    particle (模型的 is 模型 + 的), as the lexicon miner's candidates."""
    return len(piece) > 1 and piece[0] not in CJK_PARTICLES and piece[-1] not in CJK_PARTICLES


def _best_cut(text: str, counts: _Counts) -> list[str]:
    """The cut covering most characters with corpus words, then with the
    fewest pieces, then with the commonest ones (dynamic programming)."""
    n = len(text)
    # best[i]: (uncovered chars, pieces, -sum log df) of text[:i], and the cut.
    best: list[tuple[tuple[int, int, float], list[str]]] = [((0, 0, 0.0), [])]
    for end in range(1, n + 1):
        options = []
        for size in range(1, min(MAX_PIECE, end) + 1):
            (miss, count, cost), cut = best[end - size]
            piece = text[end - size : end]
            df = counts.df(piece) if _may_be_word(piece) else 0
            if size > 1 and df < MIN_PIECE_DF:
                continue
            key = (miss + (size == 1), count + 1, cost - (float(np.log(df)) if df else 0.0))
            options.append((key, [*cut, piece]))
        best.append(min(options, key=lambda option: option[0]))
    return best[n][1]


class _Counts:
    """Summary document frequencies of n-grams, from the bigram postings:
    exact for a bigram, and for a longer n-gram the papers holding all its
    bigrams, checked against their text."""

    def __init__(self, index: SearchIndex) -> None:
        self._index = index
        self._seen: dict[str, int] = {}

    def df(self, gram: str) -> int:
        if gram not in self._seen:
            self._seen[gram] = self._count(gram)
        return self._seen[gram]

    def _count(self, gram: str) -> int:
        docs: NDArray[np.int32] | None = None
        for a, b in itertools.pairwise(gram):
            found = self._postings(a, b)
            docs = found if docs is None else np.intersect1d(docs, found, assume_unique=True)
            if len(docs) < MIN_PIECE_DF:
                return 0
        if docs is None:
            return 0
        if len(gram) == 2:
            return len(docs)
        # The papers holding every bigram, read up to a sample: a common
        # n-gram's exact count costs a scan and changes no cut.
        sample = docs[:: max(1, len(docs) // MAX_CHECKED)][:MAX_CHECKED].tolist()
        summaries = self._index.summaries
        held = sum(gram in summaries[d] for d in sample)
        return round(held * len(docs) / len(sample))

    def _postings(self, a: str, b: str) -> NDArray[np.int32]:
        field = self._index.summary
        key = (BIGRAM << TAG_SHIFT) | (ord(a) << CJK_BITS) | ord(b)
        pos = int(field.lookup(np.array([key], dtype=np.int64))[0])
        if pos < 0:
            return np.zeros(0, dtype=np.int32)
        return field.docs[field.indptr[pos] : field.indptr[pos + 1]]
