"""Paper-to-paper similarity for the digest's diversity (pure, numpy only).

Each paper becomes a short TF-IDF vector over its title and summary: Latin
words (lightly stemmed) and CJK character bigrams, so an English title and a
Chinese summary both contribute. Only the `TERMS_KEPT` heaviest terms of a
paper are kept, as two fixed-width arrays (term ids and weights, each row
unit-length), so the whole corpus is a few numpy arrays built once per corpus
version and the similarity of a few candidates to a few picks is a gather
and a sum. Cosine similarity of non-negative weights lies in [0, 1]; two
versions of one paper score near 1, papers on one narrow subject well above
unrelated ones.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from paperbot.core.text import fold_word, is_cjk_run, tokens

TERMS_KEPT = 32
# The title and the start of the summary say what a paper is about; reading
# further costs time on a large corpus and mostly adds method detail.
TEXT_READ = 240


def paper_terms(text: str) -> list[str]:
    """The terms of one paper's text, repeats kept: folded Latin words and
    CJK character bigrams (no Traditional-to-Simplified step: similarity
    compares papers of one corpus, and that step dominates the cost)."""
    terms: list[str] = []
    for token in tokens(unicodedata.normalize("NFKC", text[:TEXT_READ]).casefold()):
        if is_cjk_run(token):
            terms.extend(token[i : i + 2] for i in range(max(1, len(token) - 1)))
        elif len(token) > 1 and not token.isdigit():
            terms.append(fold_word(token))
    return terms


@dataclass(frozen=True, slots=True)
class PaperVectors:
    """Row i: paper i's kept term ids, ascending (`-1` pads the end), and
    their weights (each row unit-length)."""

    terms: NDArray[np.int32]
    weights: NDArray[np.float64]

    @classmethod
    def empty(cls, papers: int) -> PaperVectors:
        """Vectors that make every pair dissimilar (no texts given)."""
        return cls(
            np.full((papers, 1), -1, dtype=np.int32), np.zeros((papers, 1), dtype=np.float64)
        )

    @classmethod
    def build(cls, texts: Sequence[str]) -> PaperVectors:
        """From one text per paper, in corpus position order."""
        doc, term, vocabulary = _term_table(texts)
        papers = len(texts)
        if len(doc) == 0:
            return cls.empty(papers)
        pairs, counts = np.unique(doc * vocabulary + term, return_counts=True)
        doc, term = pairs // vocabulary, pairs % vocabulary
        # Smoothed IDF: a term every paper has still counts a little, so two
        # copies of one paper stay similar even in a tiny corpus.
        idf = np.log((1 + papers) / (1 + np.bincount(term, minlength=vocabulary))) + 1.0
        weight = (1.0 + np.log(counts)) * idf[term]
        heaviest = np.lexsort((term, -weight, doc))
        doc, term, weight = doc[heaviest], term[heaviest], weight[heaviest]
        kept = rank_in_group(doc) < TERMS_KEPT
        doc, term, weight = doc[kept], term[kept], weight[kept]
        by_term = np.lexsort((term, doc))
        doc, term, weight = doc[by_term], term[by_term], weight[by_term]
        norms = np.sqrt(np.bincount(doc, weights=weight * weight, minlength=papers))
        column = rank_in_group(doc)
        terms = np.full((papers, int(np.max(column)) + 1), -1, dtype=np.int32)
        weights = np.zeros(terms.shape, dtype=np.float64)
        terms[doc, column] = term
        weights[doc, column] = weight / norms[doc]
        return cls(terms, weights)

    def __len__(self) -> int:
        return len(self.terms)

    def similarity(self, candidates: NDArray[np.intp], picks: Sequence[int]) -> NDArray[np.float64]:
        """Cosine similarity, candidates x picks, each in [0, 1]."""
        result = np.zeros((len(candidates), len(picks)), dtype=np.float64)
        cand_terms, cand_weights = self.terms[candidates], self.weights[candidates]
        for column, position in enumerate(picks):
            pick_terms, pick_weights = self.terms[position], self.weights[position]
            real = pick_terms >= 0
            pick_terms, pick_weights = pick_terms[real], pick_weights[real]
            if len(pick_terms) == 0:
                continue
            at = np.searchsorted(pick_terms, cand_terms).clip(0, len(pick_terms) - 1)
            shared = (pick_terms[at] == cand_terms) & (cand_terms >= 0)
            result[:, column] = np.where(shared, cand_weights * pick_weights[at], 0.0).sum(axis=1)
        return np.clip(result, 0.0, 1.0)


def _term_table(texts: Sequence[str]) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
    """(paper row, term id) for every term occurrence, and the vocabulary size."""
    vocabulary: dict[str, int] = {}
    rows: list[int] = []
    terms: list[int] = []
    for row, text in enumerate(texts):
        found = [vocabulary.setdefault(t, len(vocabulary)) for t in paper_terms(text)]
        terms.extend(found)
        rows.extend([row] * len(found))
    return np.array(rows, dtype=np.int64), np.array(terms, dtype=np.int64), len(vocabulary)


def rank_in_group(groups: NDArray[np.int64]) -> NDArray[np.int64]:
    """Each item's rank inside its run of equal values (input grouped)."""
    n = len(groups)
    starts = np.ones(n, dtype=bool)
    starts[1:] = groups[1:] != groups[:-1]
    start_index = np.maximum.accumulate(np.where(starts, np.arange(n), 0))
    ranks: NDArray[np.int64] = (np.arange(n) - start_index).astype(np.int64)
    return ranks
