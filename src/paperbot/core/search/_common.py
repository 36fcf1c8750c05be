"""Per-character document counts stored with the index (with its base and
with each segment), so that a process which stores an append without
reading the index (`paperbot load`) can tell whether the papers it appends
change the characters a full build treats as common (`common_cjk_chars`:
their unigrams are dropped). Summed over the base, the segments and the new
papers, the counts give the set a full build of them all finds, exactly:
the same texts are counted (every text of a field below `SAMPLE_FROM`,
those at every `COMMON_SAMPLE_STEP`th position of a larger one). A few KB
a field: one row per CJK character the texts hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paperbot.core.search._build import (
    COMMON_SAMPLE_STEP,
    SAMPLE_FROM,
    _normalize_bulk,
    _title_text,
    cjk_doc_counts,
    sampled_cjk_doc_counts,
)
from paperbot.core.search._grams import CJK_BITS
from paperbot.core.search._persist import PackedTexts, segment_columns
from paperbot.core.search._weights import COMMON_DF

COUNT_ARRAYS = {"titles": "title_chars", "summaries": "summary_chars"}
"""The stored counts of each field, by the name of its stored texts."""


def char_counts(texts: Sequence[str], start: int) -> NDArray[np.int64]:
    """Three rows, one after the other in one flat array (a stored array
    holds no empty dimension): the CJK code points of `texts` (a field's
    texts at positions `start` on), the texts holding each, and those among
    the texts at sampled positions (multiples of `COMMON_SAMPLE_STEP`). The
    second row is counted only while the field stays below `SAMPLE_FROM`
    texts (zeros past that: a larger field is counted on its sample alone,
    and appends never make a field smaller)."""
    step = COMMON_SAMPLE_STEP
    sampled = sampled_cjk_doc_counts(texts, step, (-start) % step)
    every = cjk_doc_counts(texts) if start + len(texts) < SAMPLE_FROM else None
    cps = np.flatnonzero(sampled if every is None else every)
    rows = [cps, np.zeros_like(cps) if every is None else every[cps], sampled[cps]]
    counts: NDArray[np.int64] = np.concatenate(rows).astype(np.int64)
    return counts


def packed_char_counts(packed: NDArray[np.uint8]) -> NDArray[np.int64]:
    """`char_counts` of a whole field's texts as `pack_texts` packed them."""
    return char_counts(PackedTexts(packed), 0)


def segment_char_counts(arrays: Mapping[str, NDArray[Any]], start: int) -> dict[str, NDArray[Any]]:
    """The counts of a segment's papers (`segment_arrays`) appended at
    position `start` of the index, their texts normalised as `update_papers`
    indexes them."""
    columns = segment_columns(arrays)
    titles = [_title_text(t) for t in columns["titles"]]
    summaries: list[str] = columns["summaries"]
    _normalize_bulk(summaries)
    return {
        COUNT_ARRAYS["titles"]: char_counts(titles, start),
        COUNT_ARRAYS["summaries"]: char_counts(summaries, start),
    }


def common_from_counts(parts: Sequence[NDArray[np.int64]], size: int) -> NDArray[np.int64]:
    """The code points `common_cjk_chars` finds in a field of `size` texts
    whose `char_counts` are `parts` (together covering every position)."""
    sampled = size >= SAMPLE_FROM
    row = 2 if sampled else 1
    df = np.zeros(1 << CJK_BITS, dtype=np.int64)
    for part in parts:
        rows = part.reshape(3, -1)
        np.add.at(df, rows[0], rows[row])
    texts = -(-size // COMMON_SAMPLE_STEP) if sampled else size
    return np.flatnonzero(df > COMMON_DF * texts).astype(np.int64)


def stored_common(
    parts: Sequence[Mapping[str, NDArray[Any]]], size: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]] | None:
    """The code points `common_cjk_chars` finds in each field (titles,
    summaries) of an index of `size` entries whose base and segments stored
    `parts` (each holding its `COUNT_ARRAYS`), for `update_papers`; None
    when a part holds no counts."""
    names = COUNT_ARRAYS["titles"], COUNT_ARRAYS["summaries"]
    if not all(name in part for part in parts for name in names):
        return None
    title, summary = (common_from_counts([part[name] for part in parts], size) for name in names)
    return title, summary


def keeps_common(parts: Sequence[Mapping[str, NDArray[Any]]], size: int, added: int) -> bool:
    """Whether the last of `parts` (the counts of `added` texts appended to
    an index of `size` entries, whose counts are the other parts) leaves each
    field's common characters as they were: else only a full build of them
    all answers as it should."""
    if size == 0:
        return True
    for name in COUNT_ARRAYS.values():
        counts = [part[name] for part in parts]
        before = common_from_counts(counts[:-1], size)
        if not np.array_equal(before, common_from_counts(counts, size + added)):
            return False
    return True
