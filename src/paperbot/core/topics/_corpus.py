"""The papers prepared for matching: padded keys and per-field postings.

Built once per corpus version. Each field (title, summary) keeps every
paper's padded key plus postings (Latin word -> papers, CJK character ->
papers), so matching narrows a topic's candidates by postings and verifies
each with one substring test.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import numpy as np
import numpy.typing as npt

from paperbot.core.arrays import distinct
from paperbot.core.topics._keys import LATIN_LAST, Documents

IntArray = npt.NDArray[np.int64]
PosArray = npt.NDArray[np.int32]
"""Positions of papers inside a `TopicCorpus` (not paper ids)."""
FloatArray = npt.NDArray[np.float64]

FIELDS = ("title", "summary")


@dataclass(frozen=True)
class FieldIndex:
    """One field (title or summary) of every paper, ready for matching."""

    docs: tuple[str, ...]
    word_postings: dict[str, PosArray]
    char_postings: dict[str, PosArray]
    words: tuple[str, ...]
    """Distinct folded Latin words, for finding misspellings."""


@dataclass(frozen=True)
class TopicCorpus:
    """Papers pre-normalised for matching. Build once per corpus version."""

    ids: IntArray
    title: FieldIndex
    summary: FieldIndex
    dead: PosArray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    """Positions of papers removed or changed since (their texts blanked, so
    nothing matches them; a changed paper is appended again): see `_append`."""

    def __len__(self) -> int:
        return len(self.ids)

    def field(self, name: str) -> FieldIndex:
        return self.title if name == "title" else self.summary


_BATCH = 4096
"""Papers whose keys are made together."""
_DOC_BITS = 11
_CHUNK_LIMIT = 1 << _DOC_BITS
_DOC_MASK = _CHUNK_LIMIT - 1
_CODES = 0x110000
"""Every Unicode code point (21 bits): with 11 bits of document, 32."""


def build_corpus(papers: Iterable[tuple[int, str, str]], normal: bool = False) -> TopicCorpus:
    """From (paper id, title, summary) triples (`normal`: title and summary
    are in `core.text.normalize`'s form already, as a load shares them with
    the search index). Read a batch at a time: the texts are let go as their
    keys are made."""
    ids: list[int] = []
    titles: list[str] = []
    summaries: list[str] = []
    keys = Documents()
    papers = iter(papers)
    while batch := list(islice(papers, _BATCH)):
        ids += [paper_id for paper_id, _, _ in batch]
        titles += keys.of([title for _, title, _ in batch], normal)
        summaries += keys.of([summary for _, _, summary in batch], normal)
        del batch
    return TopicCorpus(
        np.asarray(ids, dtype=np.int64),
        _build_field(titles, keys.latin),
        _build_field(summaries, keys.latin),
    )


def _build_field(docs: list[str], latin: set[str]) -> FieldIndex:
    # Every paper's distinct Latin words (`latin`: every Latin word of the
    # keys), then numbered in order of first use by C-level dict and map
    # calls (not a Python call per word).
    flat: list[str] = []
    word_counts: list[int] = []
    for doc in docs:
        found = latin.intersection(doc.split())
        flat += found
        word_counts.append(len(found))
    words = list(dict.fromkeys(flat))
    word_ids = dict(zip(words, range(len(words)), strict=True))
    keys = np.fromiter(map(word_ids.__getitem__, flat), dtype=np.int32, count=len(flat))
    del flat, word_ids
    positions = np.arange(len(docs), dtype=np.int32)
    word_postings = _postings(keys, np.repeat(positions, word_counts))
    return FieldIndex(
        docs=tuple(docs),
        word_postings={words[k]: v for k, v in word_postings.items()},
        char_postings={chr(k): v for k, v in _char_postings(docs).items()},
        words=tuple(words),
    )


def _char_postings(docs: list[str], chunk: int = 2048) -> dict[int, PosArray]:
    """CJK character -> ascending positions of the documents holding it,
    over code points a chunk of documents at a time (a key holds only Latin
    words, CJK runs and spaces: every character above `LATIN_LAST` is CJK).

    A counting sort: each chunk's distinct (code, document) pairs packed in
    4 bytes (21 bits of code point, 11 of document within the chunk), every
    code's count summed, then each chunk's pairs put in their place in one
    array of positions. At 100,000 papers (7 million pairs) this holds half
    the memory one global sort of 8-byte pairs needs."""
    if chunk > _CHUNK_LIMIT:
        raise ValueError(f"chunks of at most {_CHUNK_LIMIT} documents")
    counts = np.zeros(_CODES, dtype=np.int64)
    parts: list[npt.NDArray[np.uint32]] = []
    for start in range(0, len(docs), chunk):
        part = docs[start : start + chunk]
        codes = np.frombuffer("\n".join(part).encode("utf-32-le"), dtype=np.uint32)
        lengths = np.fromiter((len(d) + 1 for d in part), dtype=np.int64, count=len(part))
        local = np.repeat(np.arange(len(part), dtype=np.uint32), lengths)[: len(codes)]
        cjk = codes > ord(LATIN_LAST)
        pairs = (codes[cjk] << _DOC_BITS) | local[cjk]
        packed = distinct(pairs.astype(np.uint32, copy=False))
        counts += np.bincount(packed >> _DOC_BITS, minlength=_CODES)
        parts.append(packed)
    ends = np.cumsum(counts)
    cursor = ends - counts
    present = np.flatnonzero(counts)
    bounds = list(
        zip(present.tolist(), cursor[present].tolist(), ends[present].tolist(), strict=True)
    )
    positions = np.empty(int(ends[-1]), dtype=np.int32)
    parts.reverse()
    start = 0
    while parts:
        _place(parts.pop(), start, positions, cursor)  # each part freed once placed
        start += chunk
    return {code: positions[s:e] for code, s, e in bounds}


def _place(
    packed: npt.NDArray[np.uint32], start: int, positions: PosArray, cursor: IntArray
) -> None:
    """One chunk's sorted (code, document) pairs into `positions`, each
    code's after the ones already placed (`cursor`: where each code's next
    position goes; advanced)."""
    if len(packed) == 0:
        return
    codes = (packed >> _DOC_BITS).astype(np.int64)
    firsts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    runs = np.diff(np.r_[firsts, len(codes)])
    rank = np.arange(len(codes)) - np.repeat(firsts, runs)
    positions[cursor[codes] + rank] = (packed & _DOC_MASK) + start
    cursor[codes[firsts]] += runs


def _postings(keys: npt.NDArray[np.integer[Any]], docs: PosArray) -> dict[int, PosArray]:
    """key -> ascending document positions, from parallel arrays with `docs` ascending."""
    if len(keys) == 0:
        return {}
    # A stable sort by key keeps each key's documents in their ascending order;
    # numpy sorts 16-bit keys (most CJK characters, small vocabularies) by radix.
    narrow = keys.astype(np.uint16) if int(np.max(keys)) < 1 << 16 else keys
    order = np.argsort(narrow, kind="stable")
    keys, docs = keys[order], docs[order]
    bounds = np.flatnonzero(np.diff(keys)) + 1
    starts = np.concatenate(([0], bounds)).tolist()
    ends = np.concatenate((bounds, [len(keys)])).tolist()
    firsts = keys[starts].tolist()
    return {key: docs[s:e] for key, s, e in zip(firsts, starts, ends, strict=True)}
