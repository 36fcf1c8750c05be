"""Persistence encoding: the index as named numpy arrays and back (texts
packed as UTF-8 byte arrays). The storage layer writes and reads them."""

from __future__ import annotations

import codecs
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paperbot.core.models import PaperColumns
from paperbot.core.search._index import FieldIndex, SearchIndex

# Bumped whenever the array layout or gram keys change: a persisted index
# with another format is rebuilt instead of being misread. 3: dead entries.
INDEX_FORMAT = 3


def to_arrays(index: SearchIndex) -> dict[str, NDArray[Any]]:
    """The index as named arrays, to persist (texts as UTF-8 byte arrays)."""
    return dict(iter_arrays(index))


def iter_arrays(index: SearchIndex) -> Iterator[tuple[str, NDArray[Any]]]:
    """`to_arrays` lazily: each text array is packed only when asked for, so
    a writer holds one of them at a time."""
    yield "ids", index.ids
    yield "years", index.years
    yield "venue_codes", index.venue_codes
    yield "venues", _pack_texts(index.venues)
    yield "titles", _pack_texts(index.titles)
    yield "summaries", _pack_texts(index.summaries)
    yield "title_keys", index.title.keys
    yield "title_indptr", index.title.indptr
    yield "title_docs", index.title.docs
    yield "title_common", index.title.common
    yield "summary_keys", index.summary.keys
    yield "summary_indptr", index.summary.indptr
    yield "summary_docs", index.summary.docs
    yield "summary_common", index.summary.common
    yield "dead", index.dead


def from_arrays(arrays: Mapping[str, NDArray[Any]]) -> SearchIndex:
    """The inverse of `to_arrays`; raises KeyError/ValueError on a bad set."""
    index = SearchIndex(
        ids=arrays["ids"].astype(np.int64, copy=False),
        years=arrays["years"].astype(np.int32, copy=False),
        venue_codes=arrays["venue_codes"].astype(np.int32, copy=False),
        venues=_unpack_texts(arrays["venues"]),
        titles=_unpack_texts(arrays["titles"]),
        summaries=_unpack_texts(arrays["summaries"]),
        title=FieldIndex(
            arrays["title_keys"].astype(np.int64, copy=False),
            arrays["title_indptr"].astype(np.int64, copy=False),
            arrays["title_docs"].astype(np.int32, copy=False),
            arrays["title_common"].astype(np.int64, copy=False),
        ),
        summary=FieldIndex(
            arrays["summary_keys"].astype(np.int64, copy=False),
            arrays["summary_indptr"].astype(np.int64, copy=False),
            arrays["summary_docs"].astype(np.int32, copy=False),
            arrays["summary_common"].astype(np.int64, copy=False),
        ),
        dead=arrays["dead"].astype(np.int64, copy=False),
    )
    n = index.size
    if not (len(index.titles) == len(index.summaries) == len(index.years) == n):
        raise ValueError("search index arrays disagree on the number of papers")
    if len(index.dead) and not (int(index.dead[0]) >= 0 and int(index.dead[-1]) < n):
        raise ValueError("search index dead entries outside the index")
    return index


_TEXT_SEP = "\x00"


def _pack_texts(texts: Sequence[str], chunk: int = 4096) -> NDArray[np.uint8]:
    # NUL separates the texts; a text holding one is refused, not misread.
    # Encoded a chunk at a time: no full-size joined string is ever made.
    if not texts:
        return np.frombuffer(b"0", dtype=np.uint8)
    parts = [b"1"]
    for start in range(0, len(texts), chunk):
        part = texts[start : start + chunk]
        joined = _TEXT_SEP.join(part)
        if joined.count(_TEXT_SEP) != len(part) - 1:
            raise ValueError("texts to persist must not contain NUL")
        if start:
            parts.append(_TEXT_SEP.encode("utf-8"))
        parts.append(joined.encode("utf-8"))
    out = np.empty(sum(len(p) for p in parts), dtype=np.uint8)
    at = 0
    while parts:
        piece = parts.pop(0)
        out[at : at + len(piece)] = np.frombuffer(piece, dtype=np.uint8)
        at += len(piece)
    return out


def _unpack_texts(data: NDArray[np.uint8]) -> tuple[str, ...]:
    text, _ = codecs.utf_8_decode(np.ascontiguousarray(data).data, "strict", True)
    if text[:1] != "1":
        return ()
    texts = text.split(_TEXT_SEP)
    del text
    texts[0] = texts[0][1:]
    return tuple(texts)


def segment_arrays(removed: Sequence[int], columns: PaperColumns) -> dict[str, NDArray[Any]]:
    """One append as a stored segment: the ids it marks dead and the papers
    it appends, as `update_papers` takes them (loading the base and its
    segments replays them, so it equals the index appended in-process)."""
    return {
        "removed": np.asarray(removed, dtype=np.int64),
        "ids": np.asarray(columns.ids, dtype=np.int64),
        "years": np.asarray(columns.years, dtype=np.int32),
        "venues": _pack_texts(columns.venues),
        "titles": _pack_texts(columns.titles),
        "summaries": _pack_texts(columns.summaries),
    }


def segment_columns(arrays: Mapping[str, NDArray[Any]]) -> dict[str, Any]:
    """The inverse of `segment_arrays`: `update_papers`' keyword arguments."""
    ids = arrays["ids"].astype(np.int64, copy=False).tolist()
    columns: dict[str, Any] = {
        "removed": arrays["removed"].astype(np.int64, copy=False).tolist(),
        "ids": ids,
        "years": arrays["years"].astype(np.int32, copy=False).tolist(),
        "venues": list(_unpack_texts(arrays["venues"])),
        "titles": list(_unpack_texts(arrays["titles"])),
        "summaries": list(_unpack_texts(arrays["summaries"])),
    }
    if not all(len(columns[k]) == len(ids) for k in ("years", "venues", "titles", "summaries")):
        raise ValueError("search index segment arrays disagree on the number of papers")
    return columns


def dead_after(
    ids: NDArray[np.int64], dead: NDArray[np.int64], gone: Sequence[int]
) -> NDArray[np.int64]:
    """The dead positions of an index of these `ids` once the entries of the
    `gone` ids die too (as `update_papers` marks them), without the index."""
    if not len(gone) or not len(ids):
        return dead
    hit = np.flatnonzero(np.isin(ids, np.asarray(gone, dtype=np.int64)))
    return np.union1d(dead, hit).astype(np.int64)
