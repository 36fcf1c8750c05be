"""The ranker's entry point: stage 1, stage 2, the blend, lazily worked
out highlights, and the "did you mean" titles."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray
from rapidfuzz import fuzz

from paperbot.core.lazy import LazySequence
from paperbot.core.search._fusion import fused_order
from paperbot.core.search._grams import term_grams
from paperbot.core.search._index import EMPTY_RANKING, Ranking, SearchIndex
from paperbot.core.search._query import ParsedQuery, QueryProblem, Term
from paperbot.core.search._recall import field_scores, filter_mask, stage1_scores, top_candidates
from paperbot.core.search._rerank import Prepared, prepared_scores, rerank_fields
from paperbot.core.search._segment import split_unknown_runs
from paperbot.core.search._weights import (
    BLEND_STAGE1,
    CANDIDATES,
    FALLBACK_MIN_STAGE1,
    FALLBACK_SHARE,
)
from paperbot.core.text import tokens


def rank(
    index: SearchIndex,
    query: ParsedQuery,
    *,
    limit: int | None = None,
    candidates: int = CANDIDATES,
    highlight: int | None = None,
    eager: int | None = None,
    fuse: bool = True,
) -> Ranking:
    """The papers matching a parsed query, best first (ids, scores, matches).

    Matched strings (for highlighting) exist for the first `highlight`
    results only (all when None); the rest get (). Of those, the first
    `eager` (all when None) are worked out here, the others when first read
    from `Ranking.matched`: a paginator shows one page of fifty results and
    should not pay for the highlight of the other nine.

    A long query's order is stage 2's fused with a TF-IDF cosine
    (`_fusion`) unless `fuse` is False.
    """
    mask = filter_mask(index, query.venue, query.year)
    if query.problem is not None:
        return EMPTY_RANKING
    if query.is_filter_only:
        assert mask is not None
        return _filter_only(index, mask, limit)
    terms = split_unknown_runs(index, query.terms)
    s1, weights = stage1_scores(index, terms)
    s1[index.dead] = 0.0  # removed or changed since indexed: never a candidate
    cands = top_candidates(s1, candidates, mask)
    phrase = query.phrase or query.text
    prepared = prepared_scores(index, cands, terms, phrase, weights)
    titles, summaries = prepared.titles, prepared.summaries
    scored = _blended(prepared.scores, index.ids[cands].tolist(), s1[cands].tolist())
    if not scored:
        scored = _partial_coverage(index.ids[cands].tolist(), s1[cands].tolist())
    elif fuse:
        positions = [int(cands[c]) for _, _, c in scored]
        fields = [(titles[c], summaries[c]) for _, _, c in scored]
        order = fused_order(index, positions, terms, weights, fields)
        scored = [scored[i] for i in order]
    if limit is not None:
        scored = scored[:limit]
    shown = len(scored) if highlight is None else max(0, highlight)
    # The highlight reuses the fields the scorer already split into words.
    picked = [c for _, _, c in scored[:shown]]
    matched = ranked_matches(prepared, picked, len(scored), terms, phrase, weights)
    # The first page is worked out here: at 100k papers `rank` runs in a
    # worker thread, so the first reply's highlight stays off the event loop.
    matched.compute(shown if eager is None else min(eager, shown))
    return Ranking(
        tuple(i for _, i, _ in scored),
        tuple(s for s, _, _ in scored),
        matched,
    )


def rank_or_yearless(
    index: SearchIndex,
    query: ParsedQuery,
    *,
    highlight: int | None = None,
    eager: int | None = None,
    year_given: bool = False,
) -> tuple[ParsedQuery, Ranking, int | None]:
    """`rank`; when nothing matched only because of a year read from the
    words ("… Number 1999": a number in a title) and not `year_given`, the
    ranking of the words without it; a given year no paper has is
    `UNKNOWN_YEAR` (a year the venue asked for has no paper from, too).
    (The query answered, its ranking, the year dropped or None.)"""
    ranking = rank(index, query, highlight=highlight, eager=eager)
    if not ranking.ids and year_given and query.year not in loaded_years(index, query.venue):
        return replace(query, problem=QueryProblem.UNKNOWN_YEAR), ranking, None
    if ranking.ids or year_given or query.year is None or not query.terms:
        return query, ranking, None
    unfiltered = replace(query, year=None)
    fallback = rank(index, unfiltered, highlight=highlight, eager=eager)
    if not fallback.ids:
        return query, ranking, None
    return unfiltered, fallback, query.year


def loaded_years(index: SearchIndex, venue: str | None = None) -> tuple[int, ...]:
    """The years of the papers a search can return (of `venue`'s papers,
    when given), oldest first."""
    selected = filter_mask(index, venue, None)
    alive = np.ones(index.size, dtype=np.bool_) if selected is None else selected
    alive[index.dead] = False
    return tuple(int(year) for year in np.unique(index.years[alive]))


def _filter_only(index: SearchIndex, mask: NDArray[np.bool_], limit: int | None) -> Ranking:
    """A query of only a venue/year: the papers it selects, by id, all scoring 1."""
    mask[index.dead] = False
    positions = np.flatnonzero(mask)
    order = positions[np.argsort(index.ids[positions], kind="stable")]
    chosen = order[:limit] if limit is not None else order
    return Ranking(
        tuple(int(i) for i in index.ids[chosen]),
        tuple(1.0 for _ in chosen),
        tuple(() for _ in chosen),
    )


def _blended(
    stage2: Sequence[float], ids: Sequence[int], stage1: Sequence[float]
) -> list[tuple[float, int, int]]:
    """(final score, id, candidate) of each candidate stage 2 kept, best
    first, ties by id: stage 2 with a share of stage 1 blended in."""
    scored: list[tuple[float, int, int]] = []
    for c, score in enumerate(stage2):
        if score <= 0:
            continue
        final = (1 - BLEND_STAGE1) * score + BLEND_STAGE1 * stage1[c]
        scored.append((round(final, 9), ids[c], c))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return scored


def _partial_coverage(ids: Sequence[int], stage1: Sequence[float]) -> list[tuple[float, int, int]]:
    """The fallback when stage 2 matched no candidate: the candidates whose
    stage-1 coverage (share of the query's weighted grams) is close, best
    first, so near matches are shown rather than nothing."""
    scored = [
        (round(FALLBACK_SHARE * s, 9), ids[c], c)
        for c, s in enumerate(stage1)
        if s >= FALLBACK_MIN_STAGE1
    ]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return scored


def ranked_matches(
    prepared: Prepared,
    picked: Sequence[int],
    length: int,
    terms: Sequence[Term],
    phrase: str,
    weights: Sequence[float],
) -> LazySequence[tuple[str, ...]]:
    """Per ranked paper the normalised strings that matched, each worked out
    on first read and kept (pure and cheap: ~0.1 ms a paper). `picked`: the
    candidates highlighted, in rank order (stage 2 `prepared` their fields
    and term strengths: terms that matched nothing are not looked for
    again); results past them read as (). Compares equal to the tuple of
    its items.

    Not thread-safe to fill from two threads at once; a search fills it in
    one thread (the ranking's) and later reads run on the event loop.
    """
    # Only the highlighted papers' prepared fields are held, not the index.
    highlighted = [(prepared.titles[c], prepared.summaries[c]) for c in picked]
    known = [prepared.strengths[c] for c in picked]
    terms, weights = tuple(terms), tuple(weights)

    def matched(i: int) -> tuple[str, ...]:
        if i >= len(highlighted):
            return ()
        return rerank_fields(highlighted[i], terms, phrase, weights, known[i])[1]

    return LazySequence(length, matched)


def suggest_titles(index: SearchIndex, query: ParsedQuery, limit: int = 3) -> tuple[int, ...]:
    """Ids of the titles closest to the query, for a "did you mean" reply."""
    if not query.terms or index.size == 0:
        return ()
    grams = [g for tok in tokens(query.text) for g in term_grams(tok)]
    if not grams:
        return ()
    keys = np.array([k for k, _ in grams], dtype=np.int64)
    shares = np.array([s for _, s in grams], dtype=np.float64)
    # Title grams only: close titles share trigrams even when no term matched.
    title_scores = field_scores(index.title, index.title.lookup(keys), shares, index.size)
    if title_scores is None:
        return ()
    title_scores[index.dead] = 0.0
    mask = filter_mask(index, query.venue, query.year)
    cands = top_candidates(title_scores, 50, mask)
    text = query.text
    scored = []
    for pos in cands.tolist():
        similarity = fuzz.WRatio(text, index.titles[pos])
        if similarity >= 50:
            scored.append((-similarity, int(index.ids[pos])))
    scored.sort()
    return tuple(i for _, i in scored[:limit])
