"""Persistence encoding: the index as named numpy arrays and back (texts
packed as UTF-8 byte arrays). The storage layer writes and reads them."""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, overload

import numpy as np
from numpy.typing import NDArray

from paperbot.core.arrays import sorted_union
from paperbot.core.models import PaperColumns
from paperbot.core.search._index import FieldIndex, SearchIndex

# Bumped whenever the array layout or gram keys change: a persisted index
# with another format is rebuilt instead of being misread. 3: dead entries;
# 4: per-character document counts in the base and each segment (`_common`);
# 5: bound prefixes joined to their words (`core.text.join_prefixes`).
INDEX_FORMAT = 5


def to_arrays(index: SearchIndex) -> dict[str, NDArray[Any]]:
    """The index as named arrays, to persist (texts as UTF-8 byte arrays)."""
    return dict(iter_arrays(index))


def iter_arrays(index: SearchIndex) -> Iterator[tuple[str, NDArray[Any]]]:
    """`to_arrays` lazily: each text array is packed only when asked for, so
    a writer holds one of them at a time."""
    yield "ids", index.ids
    yield "years", index.years
    yield "venue_codes", index.venue_codes
    yield "venues", pack_texts(index.venues)
    yield "titles", pack_texts(index.titles)
    yield "summaries", pack_texts(index.summaries)
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


def pack_texts(
    texts: Sequence[str], chunk: int = 4096, *, consume: bool = False
) -> NDArray[np.uint8]:
    """The texts as one UTF-8 array; with `consume` (`texts` a list) each
    text is let go once packed, so the strings and their packed form are
    never both held whole."""
    # NUL separates the texts; a text holding one is refused, not misread.
    # Encoded a chunk at a time, twice: once to size the result exactly,
    # once into it (encoding is cheap; no second full-size copy is made).
    if not texts:
        return np.frombuffer(b"0", dtype=np.uint8)
    starts = range(0, len(texts), chunk)
    size = sum(len(_joined(texts, start, chunk)) for start in starts) + len(starts)
    out = np.empty(size, dtype=np.uint8)
    out[0] = ord("1")
    at = 1
    for start in starts:
        if start:
            out[at] = 0
            at += 1
        piece = _joined(texts, start, chunk)
        out[at : at + len(piece)] = np.frombuffer(piece, dtype=np.uint8)
        at += len(piece)
        if consume:
            assert isinstance(texts, list)
            texts[start : start + chunk] = [""] * len(texts[start : start + chunk])
    return out


class PackedTexts(Sequence[str]):
    """The texts `pack_texts` packed, read back a slice at a time: a build
    indexes a field from its packed form, decoding one chunk at a time,
    without every text held as a string beside its postings."""

    def __init__(
        self, packed: NDArray[np.uint8], read: Callable[[int, int], bytes] | None = None
    ) -> None:
        """With `read` (the bytes from one offset of `packed` to another,
        from wherever the caller keeps them), `packed` is read once here
        to find where each text starts and is not kept."""
        self._packed = packed if read is None else np.zeros(0, dtype=np.uint8)
        self._read = read
        if packed[:1].tobytes() != b"1":
            self._starts = self._ends = np.zeros(0, dtype=np.int64)
            return
        # A megabyte at a time: no mask as large as the texts.
        block = 1 << 20
        cuts = np.concatenate(
            [
                np.flatnonzero(packed[at : at + block] == 0) + at
                for at in range(0, len(packed), block)
            ]
        )
        self._starts = np.concatenate([[1], cuts + 1]).astype(np.int64)
        self._ends = np.concatenate([cuts, [len(packed)]]).astype(np.int64)

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, at: int) -> str: ...

    @overload
    def __getitem__(self, at: slice) -> list[str]: ...

    def __getitem__(self, at: int | slice) -> str | list[str]:
        if isinstance(at, int):
            return self._decode(range(len(self))[at], 1)[0]
        positions = range(len(self))[at]
        if not positions:
            return []
        if positions.step != 1:
            return [self._decode(i, 1)[0] for i in positions]
        return self._decode(positions.start, len(positions))

    def joined(self, first: int, count: int) -> str:
        """The texts from `first` on (`count` of them, fewer at the end) as
        one string, NUL between them: `"\\0".join(self[first:first + count])`
        without a string made for each text."""
        positions = range(len(self))[first : first + count]
        if not positions:
            return ""
        return self._joined(positions.start, len(positions))

    def _decode(self, first: int, count: int) -> list[str]:
        return self._joined(first, count).split(_TEXT_SEP)

    def _joined(self, first: int, count: int) -> str:
        start, end = int(self._starts[first]), int(self._ends[first + count - 1])
        data = self._packed[start:end].tobytes() if self._read is None else self._read(start, end)
        text, _ = codecs.utf_8_decode(data, "strict", True)
        return text


def _joined(texts: Sequence[str], start: int, chunk: int) -> bytes:
    part = texts[start : start + chunk]
    joined = _TEXT_SEP.join(part)
    if joined.count(_TEXT_SEP) != len(part) - 1:
        raise ValueError("texts to persist must not contain NUL")
    return joined.encode("utf-8")


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
        "venues": pack_texts(columns.venues),
        "titles": pack_texts(columns.titles),
        "summaries": pack_texts(columns.summaries),
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
    return sorted_union(dead, hit).astype(np.int64)
