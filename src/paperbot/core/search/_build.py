"""Building the index: normalised texts and the two fields' postings."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from paperbot.core.arrays import run_starts
from paperbot.core.models import Paper
from paperbot.core.search._chunk_runs import ChunkRuns, KeptBytes, Parked
from paperbot.core.search._grams import (
    CJK_BITS,
    TAG_SHIFT,
    UNIGRAM,
    char_grams,
    chunk_word_keys,
    chunk_words,
    cjk_mask,
    joined_codes,
    text_codes,
)
from paperbot.core.search._index import FieldIndex, SearchIndex
from paperbot.core.search._persist import PackedTexts
from paperbot.core.search._weights import COMMON_DF
from paperbot.core.text import normalize, normalize_bulk

# Title words for acronyms: a hyphenated compound counts as one word; a
# colon or other punctuation ends the run.
_TITLE_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*|[^\sA-Za-z0-9]+")


def build_index(papers: Sequence[Paper]) -> SearchIndex:
    """Index papers (any order; positions follow the given order)."""
    return build_index_columns(
        ids=[p.id for p in papers],
        titles=[p.title for p in papers],
        venues=[p.venue for p in papers],
        years=[p.year for p in papers],
        summaries=[p.summary for p in papers],
    )


def build_index_columns(
    *,
    ids: Sequence[int],
    titles: Sequence[str],
    venues: Sequence[str],
    years: Sequence[int],
    summaries: list[str],
    previous: SearchIndex | None = None,
    normal_titles: Sequence[str] | None = None,
) -> SearchIndex:
    """Index papers given column-wise (no Paper objects: less memory at 100k).

    `summaries` is consumed: its items are replaced by their normal form.
    With `normal_titles` (`normalize` of each title) the summaries are taken
    as normalised already: a load works both out once for the search index
    and the topic corpus. With the `previous` index (a rebuild after a
    load), a paper whose normalised text did not change shares the previous
    index's string instead of holding a second copy while both indexes are
    alive.
    """
    reuse = _reuse_positions(previous, ids)
    # Two statements, not `or`: older mypy joins the operands to list[str].
    norms: Sequence[str | None] = [None] * len(titles)
    if normal_titles:
        norms = normal_titles
    title_texts = tuple(
        _reuse_text(_title_text(t, norm), i, reuse, previous.titles if previous else ())
        for i, (t, norm) in enumerate(zip(titles, norms, strict=True))
    )
    if normal_titles is None:
        normalize_bulk(summaries)
    if previous is not None:
        for i, text in enumerate(summaries):
            summaries[i] = _reuse_text(text, i, reuse, previous.summaries)
    summary_texts = tuple(summaries)
    summaries.clear()
    venue_names = tuple(sorted(set(venues)))
    venue_code = {v: i for i, v in enumerate(venue_names)}
    return SearchIndex(
        ids=np.array(ids, dtype=np.int64),
        years=np.array(years, dtype=np.int32),
        venue_codes=np.array([venue_code[v] for v in venues], dtype=np.int32),
        venues=venue_names,
        titles=title_texts,
        summaries=summary_texts,
        title=build_field(title_texts),
        summary=build_field(summary_texts),
    )


def _reuse_positions(previous: SearchIndex | None, ids: Sequence[int]) -> list[int]:
    """Per new paper its position in the previous index, or -1."""
    if previous is None or previous.size == 0 or not ids:
        return []
    wanted = np.asarray(ids, dtype=np.int64)
    sorter = np.argsort(previous.ids, kind="stable")
    at = np.minimum(np.searchsorted(previous.ids, wanted, sorter=sorter), previous.size - 1)
    positions = sorter[at]
    return np.where(previous.ids[positions] == wanted, positions, -1).tolist()  # type: ignore[no-any-return]


def _reuse_text(text: str, i: int, reuse: list[int], previous: Sequence[str]) -> str:
    if reuse and reuse[i] >= 0:
        old = previous[reuse[i]]
        if old == text:
            return old
    return text


def _title_text(title: str, norm: str | None = None) -> str:
    """The normalised title (`norm`, when worked out already) plus the
    acronyms of its capitalised word runs, so `DPO` finds "Direct
    Preference Optimization"."""
    norm = normalize(title) if norm is None else norm
    found = title_acronyms(title)
    if not found:
        return norm
    words = norm.split()  # once, not once per acronym
    extra = [a for a in found if a not in words]
    return f"{norm} {' '.join(extra)}" if extra else norm


def title_acronyms(title: str) -> list[str]:
    """Initials of each run of 2-6 capitalised words: `Direct Preference
    Optimization: Your ...` -> `dpo`. A hyphenated word gives one initial,
    and also (for 3-6 letters) one per part: `Low-Rank Adaptation` -> `lra`
    too, `Retrieval-Augmented Generation` -> `rag`."""
    found: list[str] = []
    run: list[str] = []
    for word in [*_TITLE_WORD.findall(title), ""]:
        if word[:1].isupper():
            run.append(word)
            continue
        # A run of one unhyphenated word (or none, most of them) gives nothing.
        if len(run) > 1 or (run and "-" in run[0]):
            found.extend(_run_acronyms(run))
        run = []
    return list(dict.fromkeys(found))


def _run_acronyms(run: list[str]) -> list[str]:
    """The acronyms of one run of capitalised words (see `title_acronyms`)."""
    out: list[str] = []
    if len(run) > 6:
        return out  # as many parts at least: none gives an acronym
    if len(run) >= 2:
        out.append("".join([w[0] for w in run]).casefold())
    if "-" in "".join(run):  # else the parts are the words
        parts = [p for w in run for p in w.split("-") if p]
        if len(parts) > len(run) and 3 <= len(parts) <= 6:
            out.append("".join([p[0] for p in parts]).casefold())
    return out


#: Kept under its old name for the modules that import it from here.
_normalize_bulk = normalize_bulk


def build_field(
    texts: Sequence[str],
    chunk: int = 1024,
    common_cps: NDArray[np.int64] | None = None,
    between: Callable[[], object] = lambda: None,
    park: Callable[[NDArray[np.uint8]], Parked] = KeptBytes,
) -> FieldIndex:
    """Vectorised build in two passes over chunks of texts, like a counting
    sort: the first counts each gram's papers, the second writes every
    paper position straight into its gram's slot of the final postings.

    A chunk's grams are packed with the paper position in one int64, so one
    sort groups them by gram and drops a gram repeated inside one paper.
    The first pass keeps each chunk's result compactly (`ChunkRuns`: its
    distinct grams, and its papers by gram as 2-byte positions) for the
    second, whose every batch is `park`ed meanwhile (a caller may keep them
    out of memory); no buffer of every (gram, paper) pair as int64 is ever
    held. Unigrams of characters in more than `COMMON_DF` of texts
    (的, 模, 数: half of all postings) are dropped; their keys are kept in
    `common` so a one-character query for one of them scans instead
    (`common_cps` gives that set instead of counting it: an appended part
    must drop the unigrams its whole index drops). `between` is called
    between the passes, once the first one's temporaries are let go.
    """
    n = len(texts)
    if n == 0:
        return _empty_field()
    doc_bits = max(1, (n - 1).bit_length())
    if TAG_SHIFT + 3 + doc_bits > 63:
        raise ValueError(f"too many papers for one index: {n}")
    if common_cps is None:
        common_cps = common_cjk_chars(texts)
    runs = ChunkRuns(chunk, park)
    keys, df = _vocabulary(texts, chunk, doc_bits, _common_table(common_cps), runs)
    between()
    indptr = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    # Pass 2: each chunk's papers into their grams' slots, in paper order.
    docs = np.empty(int(indptr[-1]), dtype=np.int32)
    cursor = indptr[:-1].copy()
    for start, grams, counts, papers in runs.replay():
        gram_at = np.searchsorted(keys, grams)
        # A run's k-th paper goes k slots past its gram's cursor.
        first = np.cumsum(counts, dtype=np.int64) - counts
        slots = np.repeat(cursor[gram_at] - first, counts) + np.arange(len(papers))
        docs[slots] = papers.astype(np.int32) + start
        cursor[gram_at] += counts
    common = ((UNIGRAM << TAG_SHIFT) | common_cps).astype(np.int64)
    return FieldIndex(keys.astype(np.int64), indptr, docs, common)


def _vocabulary(
    texts: Sequence[str],
    chunk: int,
    doc_bits: int,
    is_common: NDArray[np.bool_] | None,
    runs: ChunkRuns,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Pass 1 of `build_field`: the sorted gram keys and each one's document
    frequency, each chunk's runs added to `runs`. The chunks' grams are
    merged into the vocabulary so far whenever they outgrow it: the
    chunks' distinct grams together are many times the vocabulary (each
    chunk repeats the common ones), and holding them all before one merge
    was most of a build's peak memory."""
    keys = np.zeros(0, dtype=np.int64)
    df = np.zeros(0, dtype=np.int64)
    seen: list[NDArray[np.int64]] = []
    seen_counts: list[NDArray[np.int64]] = []
    pending = 0
    words: dict[str, int] = {}  # each word stemmed and hashed once per field
    for start in range(0, len(texts), chunk):
        grams, papers = _chunk_pairs(texts, start, chunk, doc_bits, is_common, words)
        first = run_starts(grams)
        seen.append(grams[first])
        seen_counts.append(np.diff(np.append(first, len(grams))))
        runs.add(start, seen[-1], seen_counts[-1], papers - start)
        pending += len(first)
        if pending > max(len(keys), _MERGE_AT):
            keys, df = _merged([keys, *seen], [df, *seen_counts])
            seen, seen_counts, pending = [], [], 0
    return _merged([keys, *seen], [df, *seen_counts])


_MERGE_AT = 1 << 18
"""Distinct (chunk, gram) pairs `_vocabulary` gathers at least before a merge."""


def _merged(
    key_parts: list[NDArray[np.int64]], count_parts: list[NDArray[np.int64]]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The distinct keys of all parts, sorted, with their counts summed."""
    all_keys = np.concatenate(key_parts)
    all_counts = np.concatenate(count_parts)
    order = np.argsort(all_keys, kind="stable")
    all_keys, all_counts = all_keys[order], all_counts[order]
    del order
    first = run_starts(all_keys)
    if not len(first):
        return all_keys, all_counts
    return all_keys[first], np.add.reduceat(all_counts, first)


def _common_table(common_cps: NDArray[np.int64]) -> NDArray[np.bool_] | None:
    """Per CJK code point, whether it is one of `common_cps` (None: none
    is), made once per field for every chunk's look-ups."""
    if not len(common_cps):
        return None
    is_common = np.zeros(1 << CJK_BITS, dtype=np.bool_)
    is_common[common_cps] = True
    return is_common


def _chunk_pairs(
    texts: Sequence[str],
    start: int,
    chunk: int,
    doc_bits: int,
    is_common: NDArray[np.bool_] | None,
    words: dict[str, int] | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
    """One chunk's distinct (gram, paper) pairs sorted by gram then paper,
    without the unigrams of common characters (`is_common`: their
    `_common_table`; `words`: the field's word keys so far, `chunk_word_keys`)."""
    part = _packed_chunk(texts, start, chunk, doc_bits, words)
    grams = part >> doc_bits
    if is_common is not None:
        unigram = (grams >> TAG_SHIFT) == UNIGRAM
        # A table look-up per unigram: cheaper than `np.isin`'s sort.
        drop = np.zeros(len(part), dtype=np.bool_)
        drop[unigram] = is_common[grams[unigram] & ((1 << CJK_BITS) - 1)]
        if drop.any():
            part, grams = part[~drop], grams[~drop]
    return grams, (part & ((1 << doc_bits) - 1)).astype(np.int32)


def common_cjk_chars(texts: Sequence[str], batch: int = 4096) -> NDArray[np.int64]:
    """Code points of the CJK characters in more than `COMMON_DF` of texts,
    counted on every `COMMON_SAMPLE_STEP`th text of a field of at least
    `SAMPLE_FROM` texts: the set only decides which unigram postings are
    dropped (queries for those characters scan instead), so an estimate is
    as correct as an exact count, and cheaper."""
    step = COMMON_SAMPLE_STEP if len(texts) >= SAMPLE_FROM else 1
    # `batch` texts at a time: fewer temporaries, same counts.
    df = sampled_cjk_doc_counts(texts, step, 0, batch)
    sampled = -(-len(texts) // step)
    return np.flatnonzero(df > COMMON_DF * sampled).astype(np.int64)


def sampled_cjk_doc_counts(
    texts: Sequence[str], step: int, first: int = 0, batch: int = 4096
) -> NDArray[np.int64]:
    """`cjk_doc_counts(texts[first::step], batch)`, each batch's sample
    taken from a contiguous slice: one read of `PackedTexts`, not one per
    text."""
    df = np.zeros(1 << CJK_BITS, dtype=np.int64)
    for start in range(first, len(texts), step * batch):
        df += cjk_doc_counts(texts[start : start + step * batch][::step], batch)
    return df


COMMON_SAMPLE_STEP = 4
"""`common_cjk_chars` counts every this many texts of a field of at least
`SAMPLE_FROM` texts."""
SAMPLE_FROM = COMMON_SAMPLE_STEP * 4096
"""The texts of a field from which `common_cjk_chars` counts a sample (and
the stored counts, `_common`, follow it)."""


def cjk_doc_counts(texts: Sequence[str], batch: int = 4096) -> NDArray[np.int64]:
    """Per CJK code point (below `1 << CJK_BITS`), the texts holding it."""
    df = np.zeros(1 << CJK_BITS, dtype=np.int64)
    for start in range(0, len(texts), batch):
        sub = texts[start : start + batch]
        cp = np.frombuffer("\n".join(sub).encode("utf-32-le"), dtype=np.uint32)
        lengths = np.fromiter((len(t) + 1 for t in sub), dtype=np.int64, count=len(sub))
        doc = np.repeat(np.arange(len(sub), dtype=np.int64), lengths)[: len(cp)]
        cjk = cjk_mask(cp)
        pairs = (doc[cjk] << CJK_BITS) | (cp[cjk].astype(np.int64) & ((1 << CJK_BITS) - 1))
        pairs.sort()
        pairs = pairs[run_starts(pairs)]
        df += np.bincount(pairs & ((1 << CJK_BITS) - 1), minlength=1 << CJK_BITS)
    return df


def _packed_chunk(
    texts: Sequence[str],
    start: int,
    chunk: int,
    doc_bits: int,
    words: dict[str, int] | None = None,
) -> NDArray[np.int64]:
    """Sorted, de-duplicated (gram << doc_bits | paper) of one chunk of texts."""
    if isinstance(texts, PackedTexts):  # a load's: no string made per text
        codes = joined_codes(texts.joined(start, chunk))
    else:
        codes = text_codes(texts[start : start + chunk])
    keys, docs = char_grams((), codes)
    # Its words read off the same code points; a word twice in a paper is
    # one pair after the sort below.
    chunk_word_list, word_docs = chunk_words(codes)
    word_keys = chunk_word_keys(chunk_word_list, {} if words is None else words)
    del codes, chunk_word_list
    packed = np.concatenate(
        [
            (keys << doc_bits) | (docs.astype(np.int64) + start),
            (word_keys << doc_bits) | (word_docs.astype(np.int64) + start),
        ]
    )
    packed.sort()
    # sort + neighbour compare: np.unique is many times slower here.
    unique: NDArray[np.int64] = packed[run_starts(packed)]
    return unique


def _empty_field() -> FieldIndex:
    return FieldIndex(
        keys=np.zeros(0, dtype=np.int64),
        indptr=np.zeros(1, dtype=np.int64),
        docs=np.zeros(0, dtype=np.int32),
    )
