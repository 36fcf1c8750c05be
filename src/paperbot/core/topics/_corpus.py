"""The papers prepared for matching: padded keys and per-field postings.

Built once per corpus version. Each field (title, summary) keeps every
paper's padded key plus postings (Latin word -> papers, CJK character ->
papers), so matching narrows a topic's candidates by postings and verifies
each with one substring test.
"""

from __future__ import annotations

from array import array
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


def build_corpus(papers: Iterable[tuple[int, str, str]]) -> TopicCorpus:
    """From (paper id, title, summary) triples."""
    ids: list[int] = []
    titles: list[str] = []
    summaries: list[str] = []
    for paper_id, title, summary in papers:
        ids.append(paper_id)
        titles.append(document(title))
        summaries.append(document(summary))
    return TopicCorpus(
        np.asarray(ids, dtype=np.int64), _build_field(titles), _build_field(summaries)
    )


def _build_field(docs: list[str]) -> FieldIndex:
    word_ids: dict[str, int] = {}
    # Compact buffers: a Python list of millions of ints would cost ~36 bytes each.
    word_keys = array("i")
    word_counts: list[int] = []
    cjk_parts: list[str] = []
    cjk_counts: list[int] = []
    for doc in docs:
        distinct = set(doc.split())
        latin = [t for t in distinct if t[0] <= LATIN_LAST]
        word_keys.extend([word_ids.setdefault(t, len(word_ids)) for t in latin])
        word_counts.append(len(latin))
        chars = set("".join([t for t in distinct if t[0] > LATIN_LAST]))
        cjk_parts.append("".join(chars))
        cjk_counts.append(len(chars))
    positions = np.arange(len(docs), dtype=np.int32)
    words = list(word_ids)
    keys = np.frombuffer(word_keys, dtype=np.int32) if word_keys else np.zeros(0, np.int32)
    word_postings = _postings(keys, np.repeat(positions, word_counts))
    codes = np.frombuffer("".join(cjk_parts).encode("utf-32-le"), dtype=np.uint32)
    char_postings = _postings(codes, np.repeat(positions, cjk_counts))
    return FieldIndex(
        docs=tuple(docs),
        word_postings={words[k]: v for k, v in word_postings.items()},
        char_postings={chr(k): v for k, v in char_postings.items()},
        words=tuple(words),
    )


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
