"""Following the corpus incrementally: new papers appended to an index.

A load that only adds papers (the usual growth: a new page) does not need a
full rebuild. The new papers' texts are normalised and indexed on their own,
and each field's postings are merged into the existing ones by one
`np.insert` (every new paper's position is after every old one, so each
gram's postings stay in paper order). The texts of the old papers are
shared with the old index, not copied.

The result equals a full build of the same papers array for array, so
every search answers exactly as after a rebuild. Papers changed or removed
since they were indexed (`update_papers`) leave dead entries behind (a
changed one is appended again), which no search returns; the caller
compacts them by a full build once they grow. When an append could not
give a full build's answers (a character became common enough that a full
build would drop its unigrams), the caller builds in full instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from paperbot.core.arrays import sorted_union
from paperbot.core.search._build import (
    _normalize_bulk,
    _title_text,
    build_field,
    common_cjk_chars,
)
from paperbot.core.search._grams import TAG_SHIFT, UNIGRAM
from paperbot.core.search._index import FieldIndex, SearchIndex


def append_papers(
    index: SearchIndex,
    *,
    ids: Sequence[int],
    titles: Sequence[str],
    venues: Sequence[str],
    years: Sequence[int],
    summaries: list[str],
) -> SearchIndex | None:
    """`index` plus these papers (ids all above the index's), equal to a
    full build of both; None when only a full build can give that.

    `summaries` is consumed (replaced by their normal form), as in
    `build_index_columns`.
    """
    if ids and index.size and min(ids) <= int(np.max(index.ids)):
        return None
    return update_papers(
        index, removed=(), ids=ids, titles=titles, venues=venues, years=years, summaries=summaries
    )


def update_papers(
    index: SearchIndex,
    *,
    removed: Sequence[int],
    ids: Sequence[int],
    titles: Sequence[str],
    venues: Sequence[str],
    years: Sequence[int],
    summaries: list[str],
    common: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None,
) -> SearchIndex | None:
    """`index` with the entries of the `removed` ids and of these papers'
    ids marked dead, and these papers (new or changed) appended; None when
    a full build is needed (a common character would change).

    Without anything dead this equals a full build of the same papers.
    With dead entries it answers every search as a full build of the live
    papers would, up to the document frequencies the dead entries still add
    (the caller compacts, by a full build, before they grow large).
    `summaries` is consumed, as in `build_index_columns`. `common`: the
    code points `common_cjk_chars` finds in each field (titles, summaries)
    of the index and these papers, when known already (`stored_common`,
    from the counts stored with a replayed segment); else they are counted
    over every text.
    """
    dead = _dead_positions(index, [*removed, *ids])
    if not ids:
        return index if len(dead) == len(index.dead) else replace(index, dead=dead)
    new_titles = tuple(_title_text(t) for t in titles)
    _normalize_bulk(summaries)
    new_summaries = tuple(summaries)
    summaries.clear()
    all_titles = index.titles + new_titles
    all_summaries = index.summaries + new_summaries
    title_common, summary_common = (None, None) if common is None else common
    title = _append_field(index.title, all_titles, new_titles, index.size, title_common)
    summary = _append_field(index.summary, all_summaries, new_summaries, index.size, summary_common)
    if title is None or summary is None:
        return None
    venue_names = tuple(sorted({*index.venues, *venues}))
    venue_code = {v: i for i, v in enumerate(venue_names)}
    remap = np.array([venue_code[v] for v in index.venues], dtype=np.int32)
    old_codes = remap[index.venue_codes] if len(remap) else index.venue_codes
    return SearchIndex(
        ids=np.concatenate([index.ids, np.asarray(ids, dtype=np.int64)]),
        years=np.concatenate([index.years, np.asarray(years, dtype=np.int32)]),
        venue_codes=np.concatenate(
            [old_codes, np.array([venue_code[v] for v in venues], dtype=np.int32)]
        ),
        venues=venue_names,
        titles=all_titles,
        summaries=all_summaries,
        title=title,
        summary=summary,
        dead=dead,
    )


def _dead_positions(index: SearchIndex, ids: Sequence[int]) -> NDArray[np.int64]:
    """The index's dead positions plus every position holding one of `ids`."""
    if not ids or index.size == 0:
        return index.dead
    hit = np.flatnonzero(np.isin(index.ids, np.asarray(ids, dtype=np.int64)))
    return sorted_union(index.dead, hit).astype(np.int64)


def _append_field(
    old: FieldIndex,
    all_texts: Sequence[str],
    new_texts: Sequence[str],
    offset: int,
    common_cps: NDArray[np.int64] | None,
) -> FieldIndex | None:
    """The old field with the new texts' postings merged in, or None when
    the set of dropped common characters (`common_cps`, counted over
    `all_texts` when not given) would change."""
    if common_cps is None:
        # Small chunks: the same answer as the full build's count, with a
        # fraction of its temporaries (the old index is alive beside this).
        common_cps = common_cjk_chars(all_texts, batch=512)
    common = ((UNIGRAM << TAG_SHIFT) | common_cps).astype(np.int64)
    if offset and not np.array_equal(common, old.common):
        return None
    part = build_field(new_texts, common_cps=common_cps)
    return _merge(old, part, offset, common)


def _merge(old: FieldIndex, part: FieldIndex, offset: int, common: NDArray[np.int64]) -> FieldIndex:
    """Postings of `part` (positions shifted by `offset`) after `old`'s, per gram.

    Every step is a search or an insert into the old (sorted) arrays: no
    sort of the whole vocabulary (a union of millions of keys cost most of
    an append at 100,000 papers)."""
    at = np.searchsorted(old.keys, part.keys)
    known = np.zeros(len(part.keys), dtype=np.bool_)
    if len(old.keys):
        known = old.keys[np.minimum(at, len(old.keys) - 1)] == part.keys
    keys = np.insert(old.keys, at[~known], part.keys[~known]).astype(np.int64, copy=False)
    counts = np.insert(np.diff(old.indptr), at[~known], 0)
    part_df = np.diff(part.indptr)
    counts[np.searchsorted(keys, part.keys)] += part_df
    indptr = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    # Each new posting goes after its gram's old postings: at the end of the
    # old slice of its gram, or of the last old gram before it.
    ends = old.indptr[at + known]
    docs = np.insert(old.docs, np.repeat(ends, part_df), part.docs + np.int32(offset))
    return FieldIndex(keys, indptr, docs.astype(np.int32, copy=False), common)
