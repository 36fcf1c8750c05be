"""Following the corpus incrementally: new papers appended to a `TopicCorpus`.

A load that only adds papers (a new page) does not need the whole corpus
normalised again: the new papers are prepared on their own and each field's
postings are extended (every new paper's position is after every old one,
so each posting list stays ascending). The result equals a full build of
the same papers.

Matches are not merged: a topic's matches depend on the whole corpus (its
clear matches decide its borderline papers, `_feedback`; a keyword's typo
corrections come from every paper's words), so the caller matches again over
the extended corpus, which costs a small share of normalising it.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from paperbot.core.topics._corpus import FieldIndex, PosArray, TopicCorpus, build_corpus


def append_corpus(
    corpus: TopicCorpus, papers: Iterable[tuple[int, str, str]]
) -> tuple[TopicCorpus, TopicCorpus] | None:
    """(`corpus` plus these papers, the new papers alone), the first equal
    to a full build of both; None when the new ids do not all follow the
    corpus's (then only a full build keeps the positions in id order)."""
    part = build_corpus(papers)
    if len(part) == 0:
        return corpus, part
    if len(corpus) and int(np.min(part.ids)) <= int(np.max(corpus.ids)):
        return None
    offset = np.int32(len(corpus))
    merged = TopicCorpus(
        np.concatenate([corpus.ids, part.ids]),
        _append_field(corpus.title, part.title, offset),
        _append_field(corpus.summary, part.summary, offset),
    )
    return merged, part


def _append_field(old: FieldIndex, part: FieldIndex, offset: np.int32) -> FieldIndex:
    return FieldIndex(
        docs=old.docs + part.docs,
        word_postings=_merge_postings(old.word_postings, part.word_postings, offset),
        char_postings=_merge_postings(old.char_postings, part.char_postings, offset),
        # New words after the old ones: the order a full build meets them in.
        words=old.words + tuple(w for w in part.words if w not in old.word_postings),
    )


def _merge_postings(
    old: dict[str, PosArray], part: dict[str, PosArray], offset: np.int32
) -> dict[str, PosArray]:
    merged = dict(old)  # the old arrays are shared, not copied
    for key, positions in part.items():
        shifted = positions + offset
        before = merged.get(key)
        merged[key] = shifted if before is None else np.concatenate([before, shifted])
    return merged
