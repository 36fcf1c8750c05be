"""Stage 2: the candidates re-ranked term by term. `rerank_one` scores one
paper from its text; `rerank_scores` gives the same scores for many
candidates using the postings where it can. Both end in `combined_scores`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from paperbot.core.search._held import has_word, holding
from paperbot.core.search._index import SearchIndex
from paperbot.core.search._match import (
    FIELD_FACTORS,
    FieldSet,
    FieldText,
    NearWords,
    cjk_strengths,
    normalized_alias,
    phrase_match,
    term_match,
    term_parts,
)
from paperbot.core.search._query import Term
from paperbot.core.search._weights import (
    ALL_TERMS_BONUS,
    BM25_B,
    BM25_K1,
    EXACT,
    JOINED,
    JOINED_PIECE_MIN,
    PHRASE_PARTS,
    RARE_SUMMARY_EXACT,
    RARE_WEIGHT,
    SUBSTRING,
    SUMMARY_FACTOR,
    TITLE_FACTOR,
    TITLE_PHRASE_BONUS,
    TITLE_PIVOT_CHARS,
)
from paperbot.core.text import fold_word, is_cjk_char

SUMMARY_EXACT = EXACT * SUMMARY_FACTOR
"""The strength of an exact match in a summary."""


def rerank_one(
    title: str,
    summary: str,
    terms: Sequence[Term],
    phrase: str,
    weights: Sequence[float] | None = None,
) -> tuple[float, tuple[str, ...]]:
    """Score one paper against the query terms; 0 when no term matches.

    Per term the best of: title match, summary match x 0.7, aliases x 0.6.
    The weighted mean over terms is the coverage; a bonus when the whole
    query is a fragment of the title, and a small one when every term matched.
    """
    return rerank_fields((FieldText.of(title), FieldText.of(summary)), terms, phrase, weights)


def rerank_fields(
    fields: tuple[FieldText, FieldText],
    terms: Sequence[Term],
    phrase: str,
    weights: Sequence[float] | None = None,
    known: Sequence[float] | None = None,
) -> tuple[float, tuple[str, ...]]:
    """`rerank_one` on prepared fields: (score, the strings that matched).

    `known`: the terms' strengths in this paper as `prepared_scores` found
    them; a term known to match nothing is not looked for again (a long
    query's highlight would otherwise test every term and translation)."""
    weights = list(weights) if weights is not None else [1.0] * len(terms)
    title = fields[0].text
    strengths: list[float] = []
    matched: list[str] = []
    for at, term in enumerate(terms):
        if known is not None and not known[at]:
            strengths.append(0.0)
            continue
        best, hits = term_match(term.text, fields, term.typos)
        for alt in term.alternatives:
            alt_score, alt_hits = phrase_match(normalized_alias(alt), fields)
            if alt_score * term.weight_of(alt) > best:
                best, hits = alt_score * term.weight_of(alt), alt_hits
        strengths.append(best)
        matched.extend(hits)
    _credit_joined_pairs(terms, fields, strengths, matched)
    if not any(strengths):
        return 0.0, ()
    return combined_score(strengths, weights, title, phrase), tuple(dict.fromkeys(matched))


def combined_score(
    strengths: Sequence[float], weights: Sequence[float], title: str, phrase: str
) -> float:
    """A paper's stage-2 score from its per-term strengths: the weighted mean
    (the coverage), plus a bonus when the query of several terms is a
    fragment of the title, and a small one when every term matched. 0 when
    no term matched at all."""
    return combined_scores([strengths], weights, [title], phrase)[0]


def combined_scores(
    rows: Sequence[Sequence[float]], weights: Sequence[float], titles: Sequence[str], phrase: str
) -> list[float]:
    """`combined_score` of each paper (its term strengths, its title), with
    what the terms share worked out once: a hundred candidates a query."""
    total = sum(weights)
    # An exact summary match (strength 0.7 says exactly that) of a rare
    # term scores above a fuzzy title match: `shampoo` said in a summary is
    # better evidence than a title with `shampo`-like words.
    rare = [w >= RARE_WEIGHT for w in weights]
    phrased = len(weights) > 1 and bool(phrase)
    out = []
    for strengths, title in zip(rows, titles, strict=True):
        if not any(strengths):
            out.append(0.0)
            continue
        norm = title_length_norm(len(title))
        lifted = [s * norm if s > SUMMARY_FACTOR else s for s in strengths]
        for at, s in enumerate(lifted):
            if s == SUMMARY_EXACT and rare[at]:
                lifted[at] = RARE_SUMMARY_EXACT
        # `sum` of a list, as before: Python 3.12's float sum is compensated.
        coverage = sum([w * s for w, s in zip(weights, lifted, strict=True)]) / total
        bonus = 0.0
        if phrased and phrase in title:
            bonus += TITLE_PHRASE_BONUS
        if min(lifted) >= 0.5:
            bonus += ALL_TERMS_BONUS
        out.append(coverage + bonus)
    return out


def title_length_norm(length: int) -> float:
    """BM25's length normalisation of one occurrence (k1 = 1.2, b = 0.75)
    against a typical title, applied only downwards: a word in a longer
    title is one of many things the title says, so its match counts less;
    a short title never lifts a match (a fuzzy title match stays below an
    exact rare word in a summary). Summary matches are left as they are."""
    relative = length / TITLE_PIVOT_CHARS
    return min(1.0, (BM25_K1 + 1) / (1 + BM25_K1 * (1 - BM25_B + BM25_B * relative)))


def rerank_scores(
    index: SearchIndex,
    cands: NDArray[np.int64],
    terms: Sequence[Term],
    phrase: str,
    weights: Sequence[float],
) -> list[float]:
    """`rerank_one`'s score for every candidate, without its per-paper work
    where the index already knows the answer.

    An exact (stemmed) word is a lookup in the word postings, and a field is
    only read when what it could add still changes the term's strength: a
    title hit is the best a term can do, a summary can add at most 0.7, an
    alias at most 0.6. Scores are identical to `rerank_one`'s (tested).
    """
    return prepared_scores(index, cands, terms, phrase, weights)[0]


class Prepared(NamedTuple):
    """Stage 2's scores with what the highlight reuses, per candidate."""

    scores: list[float]
    titles: list[FieldText]
    summaries: list[FieldText]
    strengths: list[list[float]]
    """Each term's strength (joined pairs credited)."""


def prepared_scores(
    index: SearchIndex,
    cands: NDArray[np.int64],
    terms: Sequence[Term],
    phrase: str,
    weights: Sequence[float],
) -> Prepared:
    """`rerank_scores`, with the candidates' prepared fields and term
    strengths for reuse."""
    cand_list = cands.tolist()
    titles = [FieldText(index.titles[p]) for p in cand_list]
    summaries = [FieldText(index.summaries[p]) for p in cand_list]
    # Shared by every query word's typo matching (`NearWords`).
    sets = FieldSet(titles), FieldSet(summaries)
    columns = [_term_strengths(index, cands, term, sets) for term in terms]
    rows = [list(row) for row in zip(*columns, strict=True)] if columns else []
    _credit_joined_pairs_fast(index, cands, terms, sets, rows)
    out = combined_scores(rows, weights, [title.text for title in titles], phrase)
    return Prepared(out, titles, summaries, rows)


def _term_strengths(
    index: SearchIndex,
    cands: NDArray[np.int64],
    term: Term,
    sets: tuple[FieldSet, FieldSet],
) -> list[float]:
    """One term's strength in every candidate, as `rerank_one` computes it."""
    text = term.text
    parts = term_parts(text)
    if parts != (text,):
        out = _phrase_strengths(index, cands, text, parts, sets, term.typos)
    else:
        out = _token_strengths(index, cands, text, sets, term.typos)
    if term.alternatives:
        _lift_by_alternatives(index, cands, out, term, sets)
    return out


def _token_strengths(
    index: SearchIndex,
    cands: NDArray[np.int64],
    token: str,
    sets: tuple[FieldSet, FieldSet],
    typos: bool,
) -> list[float]:
    """One token's strength in every candidate (`term_match` of a token)."""
    if is_cjk_char(ord(token[0])):
        return cjk_strengths(token, *sets)
    return _word_strengths(index, cands, token, *sets, typos=typos)


def _phrase_strengths(
    index: SearchIndex,
    cands: NDArray[np.int64],
    text: str,
    parts: tuple[str, ...],
    sets: tuple[FieldSet, FieldSet],
    typos: bool,
) -> list[float]:
    """A term of several tokens in every candidate, as `term_match` scores
    it: the phrase where it occurs (`holding`), else `PHRASE_PARTS` x the
    mean of its tokens' strengths when that is more."""
    in_title, in_summary = holding(index, cands, text, sets)
    columns = [_token_strengths(index, cands, part, sets, typos) for part in parts]
    out = []
    for i, strengths in enumerate(zip(*columns, strict=True)):
        best = TITLE_FACTOR if i in in_title else SUMMARY_FACTOR if i in in_summary else 0.0
        if best < EXACT:
            mean = sum(strengths) / len(strengths)
            if PHRASE_PARTS * mean > best:
                best = PHRASE_PARTS * mean
        out.append(best)
    return out


def _word_strengths(
    index: SearchIndex,
    cands: NDArray[np.int64],
    word: str,
    titles: FieldSet,
    summaries: FieldSet,
    *,
    typos: bool = True,
) -> list[float]:
    """One Latin word's strength per candidate: exact hits from the word
    postings, the text read only where a near match could still count
    (a typo match only with `typos`)."""
    in_title = has_word(index.title, cands, word).tolist()
    in_summary = has_word(index.summary, cands, word).tolist()
    near_title = NearWords(word, titles, typos)
    near_summary: NearWords | None = None
    out = []
    for i, (t, s) in enumerate(zip(titles.fields, summaries.fields, strict=True)):
        if in_title[i]:
            out.append(EXACT)
            continue
        best = near_title.strength(i, t)
        if best < SUMMARY_EXACT:
            if in_summary[i]:
                best = SUMMARY_EXACT
            elif best < SUBSTRING * SUMMARY_FACTOR:
                if near_summary is None:
                    near_summary = NearWords(word, summaries, typos)
                strength = near_summary.strength(i, s) * SUMMARY_FACTOR
                if strength > best:
                    best = strength
        out.append(best)
    return out


def _lift_by_alternatives(
    index: SearchIndex,
    cands: NDArray[np.int64],
    strengths: list[float],
    term: Term,
    sets: tuple[FieldSet, FieldSet],
) -> None:
    """Raise each candidate's strength to what an alias of the term gives
    (`phrase_match`: `TITLE_FACTOR` in the title, `SUMMARY_FACTOR` in the summary, times
    what the alias counts). A CJK alias is found in all candidates at once;
    a Latin one from the word postings, reading only the fields holding
    every word of it."""
    for alt in term.alternatives:
        alias = normalized_alias(alt)
        if not alias:
            continue
        in_title, in_summary = holding(index, cands, alias, sets)
        weight = term.weight_of(alt)
        for i in in_title | in_summary:
            lifted = (TITLE_FACTOR if i in in_title else SUMMARY_FACTOR) * weight
            if lifted > strengths[i]:
                strengths[i] = lifted


def _credit_joined_pairs_fast(
    index: SearchIndex,
    cands: NDArray[np.int64],
    terms: Sequence[Term],
    sets: tuple[FieldSet, FieldSet],
    rows: list[list[float]],
) -> None:
    """`_credit_joined_pairs` for every candidate, skipping fields that
    cannot raise either term of the pair any more."""
    titles, summaries = sets[0].fields, sets[1].fields
    in_title = JOINED * TITLE_FACTOR
    in_summary = JOINED * SUMMARY_FACTOR
    for i in range(len(terms) - 1):
        a, b = terms[i].text, terms[i + 1].text
        if not (a.isalnum() and b.isalnum() and a.isascii() and b.isascii()):
            continue
        joined = a + b
        title_word = has_word(index.title, cands, joined).tolist()
        summary_word = has_word(index.summary, cands, joined).tolist()
        # The fields that could hold it as a piece, found in all at once.
        pieces = len(joined) >= JOINED_PIECE_MIN
        title_pieces = sets[0].holding(joined) if pieces else set()
        summary_pieces = sets[1].holding(joined) if pieces else set()
        for c, strengths in enumerate(rows):
            if strengths[i] >= in_title and strengths[i + 1] >= in_title:
                continue
            if title_word[c] or (c in title_pieces and titles[c].has_piece(joined)):
                strength = in_title
            elif strengths[i] >= in_summary and strengths[i + 1] >= in_summary:
                continue
            elif summary_word[c] or (c in summary_pieces and summaries[c].has_piece(joined)):
                strength = in_summary
            else:
                continue
            strengths[i] = max(strengths[i], strength)
            strengths[i + 1] = max(strengths[i + 1], strength)


def _credit_joined_pairs(
    terms: Sequence[Term],
    fields: tuple[FieldText, FieldText],
    strengths: list[float],
    matched: list[str],
) -> None:
    """`refined web` finds RefinedWeb: adjacent Latin terms written as one word."""
    for i in range(len(terms) - 1):
        a, b = terms[i].text, terms[i + 1].text
        if not (a.isalnum() and b.isalnum() and a.isascii() and b.isascii()):
            continue
        joined = a + b
        for field, factor in zip(fields, FIELD_FACTORS, strict=True):
            word = field.folded.get(fold_word(joined))
            if word is not None or (len(joined) >= JOINED_PIECE_MIN and field.has_piece(joined)):
                strength = JOINED * factor
                strengths[i] = max(strengths[i], strength)
                strengths[i + 1] = max(strengths[i + 1], strength)
                if word is not None:
                    matched.append(word)
                break
