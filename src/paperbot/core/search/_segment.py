"""Cutting the Chinese runs of a query into the words the corpus uses.

`大模型训练会出现` is no word of any summary: kept whole, it is one term
whose bigrams' mean IDF makes it heavy, and a paper must hold it all to
match it in stage 2. Cut into 大模型 + 训练 + 会出现, each piece weighs by
its own document frequency. The cut itself is `_cut.cut_run`; here are
the summary document frequencies it reads (`corpus_word_counts`, which the
service passes to `parse_query` so aliases and corpus words are cut
together) and the cut of runs still unknown at rank time.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from paperbot.core.search._cut import COMMON_CHAR, MIN_PIECE_DF, WordCount, cut_run
from paperbot.core.search._grams import BIGRAM, CJK_BITS, TAG_SHIFT, UNIGRAM, word_key
from paperbot.core.search._index import SearchIndex
from paperbot.core.search._query import Term
from paperbot.core.search._weights import IDF_FULL
from paperbot.core.search._words import CJK_PARTICLES, is_question_word
from paperbot.core.text import is_cjk_run

# Runs shorter than this are left as they are (a two-character word).
MIN_RUN = 4
# Papers whose text is read to count a longer n-gram.
MAX_CHECKED = 64


def split_unknown_runs(index: SearchIndex, terms: tuple[Term, ...]) -> tuple[Term, ...]:
    """The terms with every unknown Chinese run cut into corpus words; a
    run the summaries hold whole, or one with aliases, stays."""
    out: list[Term] = []
    counts = corpus_word_counts(index)
    for term in terms:
        pieces = _pieces(counts, term)
        out.extend(replace(term, text=p) for p in pieces)
    return tuple(out) if out else terms


def _pieces(counts: WordCount, term: Term) -> list[str]:
    text = term.text
    if term.alternatives or not is_cjk_run(text) or len(text) < MIN_RUN:
        return [text]
    if counts(text) >= MIN_PIECE_DF:
        return [text]
    words = [p.text for p in cut_run(text, (), counts) if not is_grammar(p.text)]
    return words or [text]


def is_grammar(word: str) -> bool:
    """A leftover character or a question or particle piece: no topic."""
    return len(word) == 1 or is_question_word(word) or all(c in CJK_PARTICLES for c in word)


def corpus_word_counts(index: SearchIndex) -> WordCount:
    """In how many summaries a Chinese n-gram or a rare character occurs
    (a common one counts `COMMON_CHAR`), or in how many papers
    (title or summary) a Latin word (`_Counts.df`; a Chinese n-gram counts 0
    under `MIN_PIECE_DF`, where the count decides nothing), remembered for
    the one query it serves."""
    return _Counts(index).df


class _Counts:
    """Summary document frequencies of n-grams, from the bigram postings:
    exact for a bigram, and for a longer n-gram estimated from the papers
    holding its rarest bigram, checked against their text."""

    def __init__(self, index: SearchIndex) -> None:
        self._index = index
        self._seen: dict[str, int] = {}

    def df(self, gram: str) -> int:
        if gram not in self._seen:
            self._seen[gram] = self._count(gram)
        return self._seen[gram]

    def _count(self, gram: str) -> int:
        if gram.isascii() and gram.isalpha():
            return self._papers_saying(gram)
        if len(gram) == 1 and is_cjk_run(gram):
            return self._char_count(gram)
        if len(gram) < 2 or not is_cjk_run(gram):
            return 0
        rarest: NDArray[np.int32] | None = None
        for a, b in itertools.pairwise(gram):
            found = self._postings(a, b)
            if rarest is None or len(found) < len(rarest):
                rarest = found
            if len(rarest) < MIN_PIECE_DF:
                return 0
        assert rarest is not None
        if len(gram) == 2:
            return len(rarest)
        # The papers holding the rarest bigram, read up to a sample: a
        # common n-gram's exact count costs a scan and changes no cut.
        sample = rarest[:: max(1, len(rarest) // MAX_CHECKED)][:MAX_CHECKED].tolist()
        summaries = self._index.summaries
        held = sum(gram in summaries[d] for d in sample)
        return round(held * len(rarest) / len(sample))

    def _char_count(self, char: str) -> int:
        """Summaries holding a character, read off its unigram postings;
        `COMMON_CHAR` for one in more than a rare word's share of them (its
        IDF below `IDF_FULL`: about 5%; beyond `COMMON_DF` its unigrams are
        not even indexed), which alone is grammar or a piece of many words."""
        field = self._index.summary
        key = np.array([(UNIGRAM << TAG_SHIFT) | ord(char)], dtype=np.int64)
        if field.is_common(int(key[0])):
            return COMMON_CHAR
        pos = int(field.lookup(key)[0])
        found = int(field.indptr[pos + 1] - field.indptr[pos]) if pos >= 0 else 0
        if found > self._index.size / math.expm1(IDF_FULL):
            return COMMON_CHAR
        return found if found >= MIN_PIECE_DF else 0

    def _papers_saying(self, word: str) -> int:
        """Live papers whose title or summary holds the (stemmed) Latin
        word (a paper saying it in both counts twice)."""
        key = np.array([word_key(word)], dtype=np.int64)
        total = 0
        dead = self._index.dead
        for field in (self._index.title, self._index.summary):
            pos = int(field.lookup(key)[0])
            if pos >= 0:
                docs = field.docs[field.indptr[pos] : field.indptr[pos + 1]]
                # Removed or changed papers say nothing any more.
                total += len(docs) - (int(np.isin(docs, dead).sum()) if len(dead) else 0)
        return total

    def _postings(self, a: str, b: str) -> NDArray[np.int32]:
        field = self._index.summary
        key = (BIGRAM << TAG_SHIFT) | (ord(a) << CJK_BITS) | ord(b)
        pos = int(field.lookup(np.array([key], dtype=np.int64))[0])
        if pos < 0:
            return np.zeros(0, dtype=np.int32)
        return field.docs[field.indptr[pos] : field.indptr[pos + 1]]
