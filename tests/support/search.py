"""Shared by the search tests: the shipped corpus as Paper objects (no database)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

from paperbot.config import BUNDLED_CORPUS
from paperbot.core.corpus import decode, merge_entries, parse_text
from paperbot.core.models import Paper
from paperbot.core.search import (
    QueryTables,
    SearchIndex,
    build_index,
    build_index_columns,
    parse_query,
    rerank_one,
    rerank_scores,
    stage1_scores,
    top_candidates,
)
from tests.support.topics import shipped_vocabulary


@cache
def real_papers() -> tuple[Paper, ...]:
    """The bundled corpus merged into papers, ids 1..n in title-key order."""
    files = []
    for path in sorted(BUNDLED_CORPUS.glob("*.txt")):
        text = decode(path.read_bytes(), path.name)
        assert isinstance(text, str)
        files.append(parse_text(text, path.name, "预训练"))
    records = sorted(merge_entries(e for f in files for e in f.entries), key=lambda r: r.key)
    return tuple(
        Paper(i, r.title, r.venue, r.year, r.area, r.summaries, r.sources)
        for i, r in enumerate(records, start=1)
    )


@cache
def real_index() -> SearchIndex:
    return build_index(real_papers())


def title_of(paper_id: int) -> str:
    return next(p.title for p in real_papers() if p.id == paper_id)


def index_of(papers: Sequence[tuple[str, str]]) -> SearchIndex:
    """An index of (title, summary) pairs, ids 1..n, all arXiv 2024."""
    return build_index_columns(
        ids=list(range(1, len(papers) + 1)),
        titles=[t for t, _ in papers],
        venues=["arXiv"] * len(papers),
        years=[2024] * len(papers),
        summaries=[s for _, s in papers],
    )


def fast_and_plain_scores(
    query: str,
    tables: QueryTables,
    venues: Sequence[str] = (),
    candidates: int = 400,
) -> tuple[list[float], list[float]]:
    """Stage 2's scores of the real index's candidates for `query`, parsed
    with `tables`, from the fast scorer (`rerank_scores`) and the plain one
    (`rerank_one`)."""
    index = real_index()
    parsed = parse_query(
        query,
        venues=tuple(venues),
        expansions=tables.expansions,
        translations=tables.translations,
        synonyms=tables.synonyms,
    )
    s1, weights = stage1_scores(index, parsed.terms)
    cands = top_candidates(s1, candidates)
    phrase = parsed.phrase or parsed.text
    fast = rerank_scores(index, cands, parsed.terms, phrase, weights)
    plain = [
        rerank_one(index.titles[p], index.summaries[p], parsed.terms, phrase, weights)[0]
        for p in cands.tolist()
    ]
    return list(fast), plain


@cache
def shipped_tables() -> QueryTables:
    """The tables the app searches with (`services.app.vocabulary_search`)."""
    vocabulary = shipped_vocabulary()
    return QueryTables.of(vocabulary.expansions(), [(c.en, c.zh) for c in vocabulary.concepts])


def shipped_table() -> Mapping[str, Sequence[str]]:
    """The shipped alias table, with the bilingual concepts."""
    return shipped_tables().expansions


def shipped_synonyms() -> Mapping[str, Sequence[str]]:
    """The shipped concepts' same-language synonyms."""
    return shipped_tables().synonyms
