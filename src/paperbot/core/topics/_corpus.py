"""The papers prepared for matching: padded keys and per-field postings.

Built once per corpus version. Each field (title, summary) keeps every
paper's padded key plus postings (Latin word -> papers, CJK character ->
papers), so matching narrows a topic's candidates by postings and verifies
each with one substring test.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import numpy as np
import numpy.typing as npt

from paperbot.core.arrays import distinct, run_starts
from paperbot.core.topics._keys import LATIN_LAST, Documents

IntArray = npt.NDArray[np.int64]
PosArray = npt.NDArray[np.int32]
"""Positions of papers inside a `TopicCorpus` (not paper ids)."""
FloatArray = npt.NDArray[np.float64]

FIELDS = ("title", "summary")


class Postings(Mapping[str, PosArray]):
    """Key -> ascending positions, every key's in one array (`docs`, the
    keys' in turn; `indptr`: where each starts, and the end): a list is a
    view made when asked for, not an array object per key (at 100,000
    papers ~100,000 title words, most in one title)."""

    __slots__ = ("_at", "docs", "indptr")

    def __init__(self, keys: Iterable[str], indptr: IntArray, docs: PosArray) -> None:
        self._at = {key: at for at, key in enumerate(keys)}
        if len(indptr) != len(self._at) + 1 or int(indptr[-1]) != len(docs):
            raise ValueError("postings disagree with their keys")
        self.indptr = indptr
        self.docs = docs

    @classmethod
    def empty(cls) -> Postings:
        return cls((), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32))

    def __getitem__(self, key: str) -> PosArray:
        at = self._at[key]
        return self.docs[self.indptr[at] : self.indptr[at + 1]]

    def get(self, key: str, default: Any = None) -> Any:
        at = self._at.get(key)
        return default if at is None else self.docs[self.indptr[at] : self.indptr[at + 1]]

    def __contains__(self, key: object) -> bool:
        return key in self._at

    def __iter__(self) -> Iterator[str]:
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._at)

    def slot(self, key: str) -> int | None:
        """The key's place among the keys, or None."""
        return self._at.get(key)


@dataclass(frozen=True)
class FieldIndex:
    """One field (title or summary) of every paper, ready for matching."""

    docs: tuple[str, ...]
    word_postings: Postings
    char_postings: Postings
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
    char_bits: dict[tuple[int, str], npt.NDArray[np.uint8]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """`_bits.all_bits`'s cache: papers holding a common CJK character of a
    field (by the identity of its postings), a bit each, made once per corpus
    because the feedback asks about the same characters for many topics."""

    def __getstate__(self) -> dict[str, Any]:
        # A cache is rebuilt where it is needed, never sent to another process.
        return {**self.__dict__, "char_bits": {}}

    def __len__(self) -> int:
        return len(self.ids)

    def field(self, name: str) -> FieldIndex:
        return self.title if name == "title" else self.summary


_BATCH = 4096
"""Papers whose keys are made together."""
_DOC_BITS = 11
"""Bits of a document within a chunk: with a code point's 21 bits, 32."""
_CHUNK_LIMIT = 1 << _DOC_BITS
_DOC_MASK = _CHUNK_LIMIT - 1


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


class _Numbering(dict[str, int]):
    """Words numbered in order of first use: a new word takes the next
    number when first looked up (`__missing__`, a Python call per distinct
    word only)."""

    def __missing__(self, word: str) -> int:
        number = self[word] = len(self)
        return number


def _build_field(docs: list[str], latin: set[str]) -> FieldIndex:
    # Every paper's distinct Latin words (`latin`: every Latin word of the
    # keys), numbered in order of first use by C-level set, map and array
    # calls (not a Python call per word). Only the numbers are kept: a list
    # of the split words would hold a string per word of every paper
    # (~60 MB of titles' at 100,000 papers).
    numbers = _Numbering()
    keys = array("i")
    word_counts = array("i")
    for doc in docs:
        found = latin.intersection(doc.split())
        keys.extend(map(numbers.__getitem__, found))
        word_counts.append(len(found))
    words = list(numbers)
    del numbers
    # Numbered in order of first use: the keys of the postings in that order.
    positions = np.arange(len(docs), dtype=np.int32)
    held = np.repeat(positions, np.frombuffer(word_counts, np.int32))
    numbered = _first_use_order(words, np.frombuffer(keys, np.int32), held)
    del keys, word_counts
    word_postings = Postings(words, *_postings(numbered, held, len(words)))
    del numbered, held
    return FieldIndex(
        docs=tuple(docs),
        word_postings=word_postings,
        char_postings=_char_postings(docs),
        words=tuple(words),
    )


def _first_use_order(
    words: list[str], numbers: npt.NDArray[np.int32], held: PosArray
) -> npt.NDArray[np.int32]:
    """`numbers` (each word's, paper after paper; `held`: their papers) with
    the words first met in one paper numbered in sorted order, `words`
    reordered to match (in place): a set gives a paper's words in an order
    of the hash seed, and the stored corpus must not change with it. Words
    first met in different papers keep that order (an appended part's new
    words then come in the order a full build meets them in)."""
    if len(numbers) == 0:
        return numbers
    # Numbers are given in order of first use: a first use is one above every
    # number before it, and the words first met in one paper are a run.
    first = np.empty(len(numbers), dtype=bool)
    first[0] = True
    np.greater(numbers[1:], np.maximum.accumulate(numbers)[:-1], out=first[1:])
    starts = np.flatnonzero(np.diff(held[first], prepend=-1))
    ends = np.r_[starts[1:], len(words)]
    # Most papers bring at most one new word: only the others' are sorted.
    runs = ends - starts > 1
    renumber = np.arange(len(words), dtype=np.int32)
    for start, end in zip(starts[runs].tolist(), ends[runs].tolist(), strict=True):
        run = sorted(range(start, end), key=words.__getitem__)
        renumber[run] = np.arange(start, end, dtype=np.int32)
        words[start:end] = [words[i] for i in run]
    return renumber[numbers]


def _char_postings(docs: list[str], chunk: int = 2048) -> Postings:
    """CJK character -> ascending positions of the documents holding it,
    over code points a chunk of documents at a time (a key holds only Latin
    words, CJK runs and spaces: every character above `LATIN_LAST` is CJK).

    A counting sort: each chunk's distinct (code, document) pairs, sorted,
    kept as the chunk's codes with their counts and the documents in 2
    bytes each; then every code's place in one array of positions, and each
    chunk's documents put there, the chunk let go once placed. At 100,000
    papers (7 million pairs) the chunks hold 14 MB beside the 28 MB of
    positions."""
    if chunk > _CHUNK_LIMIT:
        raise ValueError(f"chunks of at most {_CHUNK_LIMIT} documents")
    parts = [_chunk_pairs(docs[start : start + chunk]) for start in range(0, len(docs), chunk)]
    codes = distinct(np.concatenate([np.zeros(0, np.int32), *(codes for codes, _, _ in parts)]))
    counts = np.zeros(len(codes), dtype=np.int64)
    for part_codes, runs, _ in parts:
        counts[np.searchsorted(codes, part_codes)] += runs  # a chunk's codes are distinct
    indptr = np.zeros(len(codes) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    cursor = indptr[:-1].copy()
    positions = np.empty(int(indptr[-1]), dtype=np.int32)
    parts.reverse()
    start = 0
    while parts:
        _place(parts.pop(), codes, start, positions, cursor)  # each part freed once placed
        start += chunk
    return Postings(map(chr, codes.tolist()), indptr, positions)


_Pairs = tuple[npt.NDArray[np.int32], IntArray, npt.NDArray[np.uint16]]
"""A chunk's distinct (code, document) pairs, by code then document: its
distinct codes ascending, how many documents hold each, and those
documents (within the chunk), code after code."""


def _chunk_pairs(part: list[str]) -> _Pairs:
    codes = np.frombuffer("\n".join(part).encode("utf-32-le"), dtype=np.uint32)
    lengths = np.fromiter((len(d) + 1 for d in part), dtype=np.int64, count=len(part))
    local = np.repeat(np.arange(len(part), dtype=np.uint32), lengths)[: len(codes)]
    cjk = codes > ord(LATIN_LAST)
    packed = distinct(((codes[cjk] << _DOC_BITS) | local[cjk]).astype(np.uint32, copy=False))
    del codes, local, cjk
    held = (packed >> _DOC_BITS).astype(np.int32)
    firsts = run_starts(held)
    runs = np.diff(np.r_[firsts, len(held)]).astype(np.int64)
    return held[firsts], runs, (packed & _DOC_MASK).astype(np.uint16)


def _place(
    pairs: _Pairs, codes: npt.NDArray[np.int32], start: int, positions: PosArray, cursor: IntArray
) -> None:
    """One chunk's pairs (documents from `start` on) into `positions`, each
    code's after the ones already placed (`cursor`: where the next position
    of each of `codes` goes; advanced)."""
    held, runs, local = pairs
    if len(local) == 0:
        return
    slots = np.searchsorted(codes, held)
    firsts = np.cumsum(runs) - runs
    rank = np.arange(len(local)) - np.repeat(firsts, runs)
    positions[np.repeat(cursor[slots], runs) + rank] = local.astype(np.int32) + start
    cursor[slots] += runs


def _postings(
    keys: npt.NDArray[np.integer[Any]], docs: PosArray, count: int
) -> tuple[IntArray, PosArray]:
    """(indptr, docs) of `Postings` from parallel arrays of keys (each of
    0..`count`-1 at least once) and ascending documents: each key's
    documents, ascending, key after key."""
    # A stable sort by key keeps each key's documents in their ascending order;
    # numpy sorts 16-bit keys (most CJK characters, small vocabularies) by radix.
    narrow = keys.astype(np.uint16) if count <= 1 << 16 else keys
    order = np.argsort(narrow, kind="stable")
    indptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=count), out=indptr[1:])
    return indptr, docs[order]
