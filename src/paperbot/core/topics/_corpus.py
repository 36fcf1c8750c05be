"""The papers prepared for matching: padded keys and per-field postings.

Built once per corpus version. Each field (title, summary) keeps every
paper's padded key plus postings (Latin word -> papers, CJK character ->
papers), so matching narrows a topic's candidates by postings and verifies
each with one substring test.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from paperbot.core.topics._keys import LATIN_LAST, document

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


def build_corpus(papers: Iterable[tuple[int, str, str]], normal: bool = False) -> TopicCorpus:
    """From (paper id, title, summary) triples (`normal`: title and summary
    are in `core.text.normalize`'s form already, as a load shares them with
    the search index)."""
    ids: list[int] = []
    titles: list[str] = []
    summaries: list[str] = []
    for paper_id, title, summary in papers:
        ids.append(paper_id)
        titles.append(document(title, normal))
        summaries.append(document(summary, normal))
    return TopicCorpus(
        np.asarray(ids, dtype=np.int64), _build_field(titles), _build_field(summaries)
    )


def _build_field(docs: list[str]) -> FieldIndex:
    # Every paper's distinct Latin words, then numbered in order of first
    # use by C-level dict and map calls (not a Python call per word).
    flat: list[str] = []
    word_counts: list[int] = []
    for doc in docs:
        latin = [t for t in set(doc.split()) if t[0] <= LATIN_LAST]
        flat += latin
        word_counts.append(len(latin))
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


def _char_postings(docs: list[str], chunk: int = 8192) -> dict[int, PosArray]:
    """CJK character -> ascending positions of the documents holding it,
    over code points a chunk of documents at a time (a key holds only Latin
    words, CJK runs and spaces: every character above `LATIN_LAST` is CJK)."""
    pairs: list[npt.NDArray[np.int64]] = []
    for start in range(0, len(docs), chunk):
        part = docs[start : start + chunk]
        codes = np.frombuffer("\n".join(part).encode("utf-32-le"), dtype=np.uint32)
        lengths = np.fromiter((len(d) + 1 for d in part), dtype=np.int64, count=len(part))
        at = np.repeat(np.arange(start, start + len(part), dtype=np.int64), lengths)
        cjk = codes > ord(LATIN_LAST)
        # (code, document) packed in one int64: one sort groups and orders them.
        packed = (codes[cjk].astype(np.int64) << 32) | at[: len(codes)][cjk]
        packed.sort()
        pairs.append(packed[np.r_[True, packed[1:] != packed[:-1]]] if len(packed) else packed)
    packed = np.concatenate(pairs) if pairs else np.zeros(0, dtype=np.int64)
    del pairs
    if len(packed) == 0:
        return {}
    packed.sort()
    codes = (packed >> 32).astype(np.uint32)
    positions = (packed & 0xFFFFFFFF).astype(np.int32)
    del packed
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    ends = np.append(starts[1:], len(codes)).tolist()
    firsts = codes[starts].tolist()
    return {code: positions[s:e] for code, s, e in zip(firsts, starts.tolist(), ends, strict=True)}


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
