"""Following the corpus incrementally: new papers appended to a `TopicCorpus`.

A load that only adds papers (a new page) does not need the whole corpus
normalised again: the new papers are prepared on their own and each field's
postings are extended (every new paper's position is after every old one,
so each posting list stays ascending). The result equals a full build of
the same papers. Papers changed or removed since (`update_corpus`) leave dead
entries whose texts are blanked, so nothing matches them; a changed one is
appended again.

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
    if len(part) and len(corpus) and int(np.min(part.ids)) <= int(np.max(corpus.ids)):
        return None
    return _joined(corpus, part), part


def update_corpus(
    corpus: TopicCorpus, removed: Iterable[int], papers: Iterable[tuple[int, str, str]]
) -> tuple[TopicCorpus, TopicCorpus]:
    """(`corpus` with the entries of the `removed` ids and of these papers'
    ids dead, and these papers (new or changed) appended; the papers alone).

    A dead entry's texts are blanked: matching verifies every candidate
    against its text, so nothing matches it, and its postings go at the
    next full build (the caller compacts once dead entries grow).
    """
    part = build_corpus(papers)
    gone = np.union1d(np.fromiter(removed, dtype=np.int64), part.ids)
    hit = np.flatnonzero(np.isin(corpus.ids, gone)).astype(np.int32)
    if len(hit):
        corpus = TopicCorpus(
            corpus.ids,
            _blanked(corpus.title, hit),
            _blanked(corpus.summary, hit),
            np.union1d(corpus.dead, hit).astype(np.int32),
        )
    return _joined(corpus, part), part


def _joined(corpus: TopicCorpus, part: TopicCorpus) -> TopicCorpus:
    if len(part) == 0:
        return corpus
    offset = np.int32(len(corpus))
    return TopicCorpus(
        np.concatenate([corpus.ids, part.ids]),
        _append_field(corpus.title, part.title, offset),
        _append_field(corpus.summary, part.summary, offset),
        corpus.dead,
    )


def _blanked(field: FieldIndex, positions: PosArray) -> FieldIndex:
    docs = list(field.docs)
    for p in positions.tolist():
        docs[p] = ""
    return FieldIndex(tuple(docs), field.word_postings, field.char_postings, field.words)


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
