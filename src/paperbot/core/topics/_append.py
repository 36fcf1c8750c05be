"""Following the corpus incrementally: new papers appended to a `TopicCorpus`.

A load that only adds papers (a new page) does not need the whole corpus
normalised again: the new papers are prepared on their own and each field's
postings are extended (every new paper's position is after every old one,
so each posting list stays ascending). The result equals a full build of
the same papers. Papers changed or removed since (`update_corpus`) leave dead
entries whose texts are blanked, so nothing matches them; a changed one is
appended again.

A topic's matches follow by the new papers alone (`extend_matches`): they
are decided against the feedback profile kept with the matches (frozen, as
an IVF index keeps its centroids while vectors are added) and merged. With
the profile frozen, every paper's decision depends only on that paper, so
the result equals matching the whole extended corpus with that profile
(`match_topic(..., frozen=)`) in every match and every near paper with word
evidence; the near places left to papers without word evidence (over a
whole corpus an estimate, read by an upper bound) are read exactly among
the new papers, so they hold papers at least as close. It differs from
matching afresh only where the new papers would have changed the profile (a
clear match among the best `PROFILE_DOCS`, a paper entering the
corpus-frequency sample), and then only for borderline papers (first-stage
score between 0 and `STRONG_SCORE`, below every clear match) and the near
places. Removed papers drop out of the matches; their near places stay
empty or go to new papers. Once the papers added, changed or removed since pass
`REFRESH_SHARE` (10%) of those the profile was made over, the topic is
matched afresh over the whole corpus: the matches a full build of the live
papers gives (dead entries hold no text and are left out of the sample;
clear matches tie by id). A keyword's
typo corrections come from every paper's words, so keywords are matched
again instead (the caller's choice).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import replace

import numpy as np

from paperbot.core.arrays import sorted_union
from paperbot.core.topics._corpus import (
    FieldIndex,
    IntArray,
    PosArray,
    Postings,
    TopicCorpus,
    build_corpus,
)
from paperbot.core.topics._matching import NEAR_LIMIT, TopicMatches, match_topic
from paperbot.core.topics._vocabulary import Topic, Vocabulary


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
    return apply_part(corpus, removed, part), part


def apply_part(corpus: TopicCorpus, removed: Iterable[int], part: TopicCorpus) -> TopicCorpus:
    """`update_corpus` with the appended papers already built (`part`, as a
    stored segment holds them)."""
    gone = sorted_union(np.fromiter(removed, dtype=np.int64), part.ids)
    hit = np.flatnonzero(np.isin(corpus.ids, gone)).astype(np.int32)
    if len(hit):
        corpus = TopicCorpus(
            corpus.ids,
            _blanked(corpus.title, hit),
            _blanked(corpus.summary, hit),
            sorted_union(corpus.dead, hit).astype(np.int32),
        )
    return _joined(corpus, part)


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


def _merge_postings(old: Postings, part: Postings, offset: np.int32) -> Postings:
    """`old` with `part`'s positions (shifted by `offset`, after every old
    one) after each key's old ones, and `part`'s new keys after the old
    keys, in its order: one copy of the positions."""
    slots = np.fromiter(
        (len(old) if at is None else at for at in map(old.slot, part)), np.int64, len(part)
    )
    new = [key for key in part if key not in old]
    slots[slots == len(old)] = len(old) + np.arange(len(new))
    lengths = np.diff(part.indptr)
    counts = np.zeros(len(old) + len(new), dtype=np.int64)
    counts[: len(old)] = np.diff(old.indptr)
    counts[slots] += lengths
    indptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    # Each part position goes in at the end of its key's old ones (new keys:
    # at the end), by key in their new order (`np.insert` keeps the order
    # of values going to one place: the last old key's and new keys').
    ends = np.r_[old.indptr[1:], np.full(len(new), len(old.docs), dtype=np.int64)]
    held = np.repeat(slots, lengths)
    order = np.argsort(held, kind="stable")
    docs = np.insert(old.docs, ends[held[order]], part.docs[order] + offset)
    return Postings([*old, *new], indptr, docs.astype(np.int32, copy=False))


def extend_matches(
    matches: TopicMatches,
    topic: Topic,
    corpus: TopicCorpus,
    part: TopicCorpus,
    protected: frozenset[str] = frozenset(),
    vocabulary: Vocabulary | None = None,
    *,
    removed: Collection[int] = (),
) -> TopicMatches:
    """The topic's `matches` over `corpus`, which is the corpus they were
    made over with `part` appended (`append_corpus`) and the `removed` ids
    gone: the part decided against their frozen profile and merged, the
    removed papers dropped; matched afresh over `corpus` once the papers
    added, changed or removed since pass `REFRESH_SHARE`.

    A removed paper's place among the near papers stays empty or goes to a
    new paper until then (the old next best were not kept), and a removed
    clear match still counts in the frozen profile."""
    found = part_matches(matches, topic, part, protected, vocabulary, removed=removed)
    if found is None:
        return match_topic(topic, corpus, protected, vocabulary)
    return with_part(matches, found, removed, part.ids)


def part_matches(
    matches: TopicMatches,
    topic: Topic,
    part: TopicCorpus,
    protected: frozenset[str] = frozenset(),
    vocabulary: Vocabulary | None = None,
    *,
    removed: Collection[int] = (),
) -> TopicMatches | None:
    """The appended `part`'s matches as `extend_matches` decides them
    (against the frozen profile, grown by the papers gone), or None once
    the profile is stale (then only matching afresh over the whole corpus
    will do). A stored segment keeps them, replayed by `with_part`."""
    gone = sorted_union(np.fromiter(removed, dtype=np.int64, count=len(removed)), part.ids)
    grown = replace(matches.profile, since=matches.profile.since + len(gone))
    if grown.stale:
        return None
    # The part's terms are indexed once for every topic (`_terms`).
    return match_topic(topic, part, protected, vocabulary, frozen=grown, indexed=True)


def with_part(
    matches: TopicMatches, found: TopicMatches, removed: Collection[int], part_ids: IntArray
) -> TopicMatches:
    """`matches` with the removed and appended papers' old decisions left
    out and the part's (`part_matches`) merged in."""
    gone = sorted_union(np.fromiter(removed, dtype=np.int64, count=len(removed)), part_ids)
    return merge_matches(_without(matches, gone), found)


def _without(matches: TopicMatches, ids: IntArray) -> TopicMatches:
    """The matches with these papers left out (removed, or changed: a
    changed paper's new decision comes with the part)."""
    if len(ids) == 0 or not (len(matches) or len(matches.near_ids)):
        return matches
    keep = ~np.isin(matches.ids, ids)
    near = ~np.isin(matches.near_ids, ids)
    return TopicMatches(
        matches.ids[keep],
        matches.scores[keep],
        matches.near_ids[near],
        matches.near_scores[near],
        matches.profile,
    )


def merge_matches(old: TopicMatches, new: TopicMatches) -> TopicMatches:
    """Matches of two disjoint sets of papers decided with one profile, as
    one: every match best first and the `NEAR_LIMIT` best near papers (ties
    by paper id, as `match_topic` orders them); `new`'s profile (the later).

    The best near papers of a union are among the best of each part, and a
    part's closest papers without word evidence (fill) were looked for with
    at least the room the union leaves them, so nothing is missed."""
    ids = np.concatenate([old.ids, new.ids])
    scores = np.concatenate([old.scores, new.scores])
    order = np.lexsort((ids, -scores))
    near_ids = np.concatenate([old.near_ids, new.near_ids])
    near_scores = np.concatenate([old.near_scores, new.near_scores])
    near = np.lexsort((near_ids, -near_scores))[:NEAR_LIMIT]
    return TopicMatches(ids[order], scores[order], near_ids[near], near_scores[near], new.profile)
