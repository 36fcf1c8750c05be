"""Stage 1: every paper scored at once from the postings (IDF-weighted
share of each term's grams), and the best candidates picked."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from paperbot.core.search._general import english_idf, general_idf, says_less_than_usual
from paperbot.core.search._grams import TAG_SHIFT, UNIGRAM, term_grams
from paperbot.core.search._index import FieldIndex, SearchIndex
from paperbot.core.search._query import Term
from paperbot.core.search._weights import (
    COMMON_DF,
    GENERIC_FACTOR,
    IDF_FULL,
    MIN_TERM_WEIGHT,
    SEARCH_SUMMARY_WEIGHT,
    SEARCH_TITLE_WEIGHT,
)
from paperbot.core.search._words import GENERIC_WORDS, is_question_word
from paperbot.core.text import is_cjk_char, is_cjk_run, normalize, tokens


def filter_mask(
    index: SearchIndex, venue: str | None, year: int | None
) -> NDArray[np.bool_] | None:
    """Papers passing the venue/year filters, or None when there is no filter."""
    if venue is None and year is None:
        return None
    mask = np.ones(index.size, dtype=np.bool_)
    if venue is not None:
        folded = venue.casefold()
        codes = [i for i, v in enumerate(index.venues) if v.casefold() == folded]
        mask &= np.isin(index.venue_codes, codes)
    if year is not None:
        mask &= index.years == year
    return mask


@dataclass(frozen=True, slots=True)
class TermScores:
    """Stage 1 for one term: a score in [0, 1] per paper, and how much the
    term counts in the query (its mean IDF: `shampo` outweighs `optimizer`)."""

    scores: NDArray[np.float64]
    weight: float
    # The IDF of each of the term's alternatives (`Term.alternatives`).
    alt_weights: tuple[float, ...] = ()


def term_scores(
    index: SearchIndex, term: Term, seen: dict[str, TermScores] | None = None
) -> TermScores:
    """IDF-weighted share of the term's grams each paper holds, title hits
    above summary hits; an alias lifts a paper to 0.6 of a direct match.

    An English word with translations weighs no more than its commonest
    translation: the corpus's English is mostly titles, so `inputs` looks
    rare where its 输入, read from the summaries, shows a word every other
    paper says. (Not the reverse: a Chinese word's summary IDF is the
    reliable one.) Its translations count with that weight too.

    `seen` keeps the alternatives' scores for the query's other terms:
    several terms often share an alternative (权重衰减 and 衰减 both have
    `weight decay`)."""
    seen = {} if seen is None else seen
    direct = _text_scores(index, term.text)
    scores, idf = direct.scores, direct.weight
    alt_weights = []
    for alt in term.alternatives:
        if alt not in seen:
            seen[alt] = _text_scores(index, alt)
        found = seen[alt]
        np.maximum(scores, term.weight_of(alt) * found.scores, out=scores)
        alt_weights.append(found.weight)
        if alt in term.translations and term.text.isascii():
            idf = min(idf, found.weight)
    return TermScores(scores, idf, tuple(alt_weights))


def stage1_scores(
    index: SearchIndex, terms: Sequence[Term]
) -> tuple[NDArray[np.float64], list[float]]:
    """Per paper the weighted mean of the term scores (in [0, 1]), and the weights.

    Terms without aliases are summed by one `np.bincount` over all their
    postings instead of one dense array per term and field.
    """
    n = index.size
    weights: list[float] = []
    dense: list[tuple[float, NDArray[np.float64]]] = []
    sparse: list[tuple[float, Postings]] = []
    seen: dict[str, TermScores] = {}
    for term in terms:
        found = (
            term_scores(index, term, seen)
            if term.alternatives
            else _text_postings(index, term.text)
        )
        alt_weights = found.alt_weights if isinstance(found, TermScores) else ()
        weight = term_weight(term, found.weight, alt_weights)
        if isinstance(found, TermScores):
            dense.append((weight, found.scores))
        else:
            sparse.append((weight, found))
        weights.append(weight)
    # Dividing by the weight sum up front spares two passes over n papers.
    scale = 1.0 / sum(weights) if weights else 1.0
    total = Postings.merged([(p, w * scale) for w, p in sparse]).scores(n)
    for weight, scores in dense:
        total += (weight * scale) * scores
    return total, weights


def term_weight(term: Term, idf: float, alt_weights: Sequence[float] = ()) -> float:
    """How much a term counts in the query, from its mean IDF: common terms
    count less than their IDF alone says (IDF x IDF / `IDF_FULL` below it),
    so the rare content words decide; an English word's IDF is pulled
    toward the one its general English frequency gives (`small` is no rare
    word, even where few titles say it); generic words (model, 方法),
    question words left in a query and the everyday Chinese words of its
    frame (`_frames`; `alt_weights`: the IDFs of `term.alternatives`) count
    a fifth of that."""
    idf = english_idf(idf, general_idf(term.text))
    weight = idf * min(1.0, idf / IDF_FULL) * term.weight_factor
    if term.text in GENERIC_WORDS or is_question_word(term.text) or _frames(term, idf, alt_weights):
        weight *= GENERIC_FACTOR
    return max(weight, MIN_TERM_WEIGHT)


def _frames(term: Term, idf: float, alt_weights: Sequence[float]) -> bool:
    """An everyday Chinese word that the papers say less than Chinese at
    large, nor its translations more than English at large (以后, 其实:
    `_general.says_less_than_usual`): the question's frame. 图片 is rare in
    the summaries, but its `image` is common in the papers: content. So is
    a word the vocabulary names (`Term.typos` False, 安全 of safety),
    however everyday it is."""
    if not term.typos or not is_cjk_run(term.text) or not says_less_than_usual(term.text, idf):
        return False
    if len(alt_weights) != len(term.alternatives):
        return False  # alternatives not weighed: they may be content
    return all(map(says_less_than_usual, term.alternatives, alt_weights))


@dataclass(frozen=True, slots=True)
class Postings:
    """A term's stage 1 before it is summed: the posting lists of its grams
    (views into the index, not copied) with each gram's share, and the
    term's weight (mean IDF). Copied once, when summed (`scores`): at 100k
    papers a question's postings run to some 500k entries."""

    lists: tuple[NDArray[np.int32], ...]
    shares: NDArray[np.float64]
    weight: float = 1.0

    @staticmethod
    def merged(scaled: Sequence[tuple[Postings, float]]) -> Postings:
        """Several terms' postings as one, each gram's share times its scale."""
        lists = tuple(lst for p, _ in scaled for lst in p.lists)
        parts = [p.shares * scale for p, scale in scaled]
        shares = np.concatenate(parts) if parts else np.zeros(0, dtype=np.float64)
        return Postings(lists, shares)

    def scores(self, n: int) -> NDArray[np.float64]:
        """Per paper the sum of the shares of the grams it holds."""
        if not self.lists:
            return np.zeros(n, dtype=np.float64)
        lengths = [len(lst) for lst in self.lists]
        return np.bincount(
            np.concatenate(self.lists), weights=np.repeat(self.shares, lengths), minlength=n
        ).astype(np.float64, copy=False)


def _text_scores(index: SearchIndex, text: str) -> TermScores:
    """Stage 1 of one term or alias (an alias may hold several words)."""
    postings = _text_postings(index, text)
    if isinstance(postings, TermScores):
        return postings
    return TermScores(postings.scores(index.size), postings.weight)


def _text_postings(index: SearchIndex, text: str) -> Postings | TermScores:
    """A term's stage 1 as postings with their shares, already scaled by
    field weight, or dense scores for a common single character."""
    n = index.size
    toks = tokens(normalize(text))
    if len(toks) == 1 and len(toks[0]) == 1 and is_cjk_char(ord(toks[0])):
        key = (UNIGRAM << TAG_SHIFT) | ord(toks[0])
        if index.title.is_common(key) or index.summary.is_common(key):
            return _scan_char(index, toks[0])
    grams = [g for tok in toks for g in term_grams(tok)]
    if not grams or n == 0:
        return Postings((), np.zeros(0, dtype=np.float64))
    keys = np.array([k for k, _ in grams], dtype=np.int64)
    shares = np.array([s for _, s in grams], dtype=np.float64)
    positions = [(field, field.lookup(keys)) for field in (index.title, index.summary)]
    df_both = np.zeros(len(keys), dtype=np.int64)
    for field, pos in positions:
        df_both[pos >= 0] += field.df(pos[pos >= 0])
    weight = max(float(np.log1p(n / np.maximum(df_both, 1)).mean()), 0.1)
    parts = [
        (_field_postings(field, pos, shares, n), field_weight)
        for (field, pos), field_weight in zip(
            positions, (SEARCH_TITLE_WEIGHT, SEARCH_SUMMARY_WEIGHT), strict=True
        )
    ]
    found = Postings.merged([(p, w) for p, w in parts if p is not None])
    return replace(found, weight=weight)


def _scan_char(index: SearchIndex, char: str) -> TermScores:
    """A one-character query for a common character (模): a plain scan."""
    n = index.size
    in_title = np.fromiter((char in t for t in index.titles), dtype=np.bool_, count=n)
    in_summary = np.fromiter((char in t for t in index.summaries), dtype=np.bool_, count=n)
    df = int(in_title.sum() + in_summary.sum())
    scores = SEARCH_TITLE_WEIGHT * in_title + SEARCH_SUMMARY_WEIGHT * in_summary
    return TermScores(scores.astype(np.float64), float(np.log1p(n / max(df, 1))))


def field_scores(
    field: FieldIndex, pos: NDArray[np.int64], shares: NDArray[np.float64], n: int
) -> NDArray[np.float64] | None:
    """Per paper, the IDF-weighted share of the grams found in this field."""
    found = _field_postings(field, pos, shares, n)
    return None if found is None else found.scores(n)


def _field_postings(
    field: FieldIndex, pos: NDArray[np.int64], shares: NDArray[np.float64], n: int
) -> Postings | None:
    """The posting lists of the found grams, each with its gram's IDF-weighted share."""
    found = pos >= 0
    if not found.any():
        return None
    df = np.zeros(len(pos), dtype=np.int64)
    df[found] = field.df(pos[found])
    weight = np.log1p(n / np.maximum(df, 1)) * shares
    # Grams in most papers say little and have huge posting lists: leave
    # them out (of the sum and of the whole) unless nothing else is left.
    common = df > COMMON_DF * n
    usable = found & ~common
    if usable.any():
        total = weight[~common].sum()
    else:
        usable = found
        total = weight.sum()
    starts = field.indptr[pos[usable]].tolist()
    ends = field.indptr[pos[usable] + 1].tolist()
    lists = tuple(field.docs[s:e] for s, e in zip(starts, ends, strict=True))
    return Postings(lists, weight[usable] / total)


def top_candidates(
    scores: NDArray[np.float64], k: int, mask: NDArray[np.bool_] | None = None
) -> NDArray[np.int64]:
    """Positions of the k best non-zero scores (unordered)."""
    sampled = _above_sample_threshold(scores, k) if mask is None else None
    nz: NDArray[np.int64] = np.flatnonzero(scores) if sampled is None else sampled
    if mask is not None:
        nz = nz[mask[nz]]
    if len(nz) > k:
        nz = nz[np.argpartition(-scores[nz], k - 1)[:k]]
    return nz.astype(np.int64)


_SAMPLE_STEP = 16


def _above_sample_threshold(scores: NDArray[np.float64], k: int) -> NDArray[np.int64] | None:
    """The positions scoring at least a threshold read off every 16th score,
    when that leaves at least k non-zero ones (then they hold the k best);
    else None. `flatnonzero` over a large, half non-zero array costs more
    than the ranking it feeds."""
    if len(scores) < 64 * k:
        return None
    sample = scores[::_SAMPLE_STEP]
    # About 2k/16 sampled scores above it: some 2k papers overall.
    j = min(len(sample), 2 * (k // _SAMPLE_STEP + 1))
    threshold = float(np.partition(sample, len(sample) - j)[len(sample) - j])
    if threshold <= 0:
        return None
    above = np.flatnonzero(scores >= threshold)
    return above if len(above) >= k else None
