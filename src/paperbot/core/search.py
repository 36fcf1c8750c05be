"""Bilingual, typo-tolerant paper search: an n-gram index and a two-stage ranker.

Stage 1 scores every paper at once from an inverted index held as numpy
arrays: CJK unigrams and bigrams, Latin word tokens (lightly stemmed) and
Latin character trigrams padded at word boundaries, separately for titles
and summaries. Each query term contributes its IDF-weighted share of grams
found, so a paper covering more of the query scores higher, typos still
share most trigrams, and a Chinese phrase that is not verbatim in a summary
still matches through its bigrams. One `np.bincount` does the sum.

Stage 2 re-ranks the best hundred candidates term by term: exact word
or phrase, a run-together/split form, a rapidfuzz typo match, or bigram
coverage for Chinese; titles count above summaries and the stage-1 score is
blended in so re-ranking never loses a paper stage 1 found clearly.

Everything here is pure: the service layer fetches papers and persists the
arrays (`to_arrays`/`from_arrays`).
"""

from __future__ import annotations

import codecs
import itertools
import re
import unicodedata
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import lru_cache
from typing import Any, overload

import numpy as np
from numpy.typing import NDArray
from rapidfuzz import fuzz, process

from paperbot.core.models import Paper
from paperbot.core.query import ParsedQuery, Term
from paperbot.core.text import (
    CJK_RANGES,
    collapse_whitespace,
    fold_word,
    has_cjk,
    is_cjk_char,
    is_cjk_run,
    latin_words,
    normalize,
    strip_invisible,
    to_simplified,
    tokens,
)

# Bumped whenever the array layout or gram keys change: a persisted index
# with another format is rebuilt instead of being misread.
INDEX_FORMAT = 1

# Gram keys are int64: a kind tag in bits 40+ and the gram's code below.
_TAG_SHIFT = 40
_TRIGRAM, _UNIGRAM, _BIGRAM, _WORD = 1, 2, 3, 4
_LATIN_BITS = 10  # Latin letters/digits used by core.text stop at U+024F
_CJK_BITS = 18  # CJK ideographs stop below U+30000

# Stage-1 field weights: a title hit outweighs a summary hit.
TITLE_WEIGHT = 0.75
SUMMARY_WEIGHT = 0.25
# Share of a Latin term's stage-1 weight carried by the whole (stemmed) word;
# the rest is spread over its trigrams, so typos keep most of the score.
_WORD_SHARE = 0.4
# Grams in more than this share of papers carry almost no information and
# have huge posting lists; they are skipped when a term has rarer grams.
_COMMON_DF = 0.25
CANDIDATES = 100
# Title words for acronyms: a hyphenated compound counts as one word; a
# colon or other punctuation ends the run.
_TITLE_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*|[^\sA-Za-z0-9]+")

# Stage 2: per-term match strengths (exact > run-together > fuzzy).
_EXACT = 1.0
_JOINED = 0.95
_SUBSTRING = 0.9
_FUZZY = 0.85
_PARTIAL_CJK = 0.85
_ALTERNATIVE = 0.6
_PHRASE_PARTS = 0.95
_SUMMARY_FACTOR = 0.7
_BLEND_STAGE1 = 0.25
_TITLE_PHRASE_BONUS = 0.1
_ALL_TERMS_BONUS = 0.05


@dataclass(frozen=True, slots=True)
class FieldIndex:
    """An inverted index of one field: sorted gram keys -> paper positions."""

    keys: NDArray[np.int64]
    indptr: NDArray[np.int64]
    docs: NDArray[np.int32]
    # Unigram keys whose postings were dropped as too common (sorted).
    common: NDArray[np.int64] = dataclass_field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def is_common(self, key: int) -> bool:
        at = int(np.searchsorted(self.common, key))
        return at < len(self.common) and int(self.common[at]) == key

    def df(self, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        counts: NDArray[np.int64] = self.indptr[positions + 1] - self.indptr[positions]
        return counts

    def lookup(self, keys: NDArray[np.int64]) -> NDArray[np.int64]:
        """Vocabulary position of each key, or -1 when absent."""
        if len(self.keys) == 0:
            return np.full(len(keys), -1, dtype=np.int64)
        at = np.searchsorted(self.keys, keys)
        at = np.minimum(at, len(self.keys) - 1)
        return np.where(self.keys[at] == keys, at, -1).astype(np.int64)


@dataclass(frozen=True, slots=True)
class SearchIndex:
    """Everything a query needs, by paper position 0..n-1."""

    ids: NDArray[np.int64]
    years: NDArray[np.int32]
    venue_codes: NDArray[np.int32]
    venues: tuple[str, ...]
    titles: tuple[str, ...]  # normalised
    summaries: tuple[str, ...]  # normalised
    title: FieldIndex
    summary: FieldIndex

    @property
    def size(self) -> int:
        return len(self.ids)


@dataclass(frozen=True, slots=True)
class Ranking:
    """Ranked paper ids with their scores, best first, and per paper the
    normalised strings that matched (for highlighting)."""

    ids: tuple[int, ...]
    scores: tuple[float, ...]
    # A tuple, or `RankedMatches` working out later results on first read.
    matched: Sequence[tuple[str, ...]]


EMPTY_RANKING = Ranking((), (), ())


# ---------------------------------------------------------------- building


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
) -> SearchIndex:
    """Index papers given column-wise (no Paper objects: less memory at 100k).

    `summaries` is consumed: its items are replaced by their normal form.
    With the `previous` index (a rebuild after a load), a paper whose
    normalised text did not change shares the previous index's string
    instead of holding a second copy while both indexes are alive.
    """
    reuse = _reuse_positions(previous, ids)
    title_texts = tuple(
        _reuse_text(_title_text(t), i, reuse, previous.titles if previous else ())
        for i, t in enumerate(titles)
    )
    _normalize_bulk(summaries)
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


def _title_text(title: str) -> str:
    """The normalised title plus the acronyms of its capitalised word runs,
    so `DPO` finds "Direct Preference Optimization"."""
    norm = normalize(title)
    extra = [a for a in title_acronyms(title) if a not in norm.split()]
    return f"{norm} {' '.join(extra)}" if extra else norm


def title_acronyms(title: str) -> list[str]:
    """Initials of each run of 2-6 capitalised words: `Direct Preference
    Optimization: Your ...` -> `dpo`."""
    found: list[str] = []
    run: list[str] = []
    for word in [*_TITLE_WORD.findall(title), ""]:
        if word[:1].isupper():
            run.append(word[0])
            continue
        if 2 <= len(run) <= 6:
            found.append("".join(run).casefold())
        run = []
    return found


def _normalize_bulk(texts: list[str], chunk: int = 1000) -> None:
    """`normalize` over many texts in place, a chunk per call (a third
    faster; in place so raw and normal forms never coexist in full).

    A private-use separator survives NFKC, case folding and OpenCC
    unchanged. Chunks keep the joined strings small, and OpenCC is called
    around `to_simplified`'s cache, which would keep every chunk alive.
    """
    sep = "\ue000"
    for start in range(0, len(texts), chunk):
        part = texts[start : start + chunk]
        joined = unicodedata.normalize("NFKC", strip_invisible(sep.join(part))).casefold()
        if has_cjk(joined):
            joined = to_simplified.__wrapped__(joined)
        pieces = joined.split(sep)
        del joined
        if len(pieces) != len(part) or any(sep in t for t in part):
            texts[start : start + len(part)] = [normalize(t) for t in part]
        else:
            texts[start : start + len(part)] = [collapse_whitespace(p) for p in pieces]


def build_field(texts: Sequence[str], chunk: int = 1024) -> FieldIndex:
    """Vectorised build in two passes over chunks of texts, like a counting
    sort: the first counts each gram's papers, the second writes every
    paper position straight into its gram's slot of the final postings.

    A chunk's grams are packed with the paper position in one int64, so one
    sort groups them by gram and drops a gram repeated inside one paper.
    Only the final arrays and one chunk's temporaries are ever held, never
    a buffer of every (gram, paper) pair: the grams are computed twice
    instead. Unigrams of characters in more than `_COMMON_DF` of texts
    (的, 模, 数: half of all postings) are dropped; their keys are kept in
    `common` so a one-character query for one of them scans instead.
    """
    n = len(texts)
    if n == 0:
        return _empty_field()
    doc_bits = max(1, (n - 1).bit_length())
    if _TAG_SHIFT + 3 + doc_bits > 63:
        raise ValueError(f"too many papers for one index: {n}")
    common_cps = _common_cjk_chars(texts)
    # Pass 1: the vocabulary and each gram's document frequency.
    seen: list[NDArray[np.int64]] = []
    seen_counts: list[NDArray[np.int64]] = []
    for start in range(0, n, chunk):
        grams, _ = _chunk_pairs(texts, start, chunk, doc_bits, common_cps)
        first = _run_starts(grams)
        seen.append(grams[first])
        seen_counts.append(np.diff(np.append(first, len(grams))))
    all_keys = np.concatenate(seen)
    all_counts = np.concatenate(seen_counts)
    del seen, seen_counts
    order = np.argsort(all_keys, kind="stable")
    all_keys, all_counts = all_keys[order], all_counts[order]
    first = _run_starts(all_keys)
    keys = all_keys[first]
    df = np.add.reduceat(all_counts, first) if len(first) else np.zeros(0, dtype=np.int64)
    del all_keys, all_counts, order, first
    indptr = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    # Pass 2: each chunk's papers into their grams' slots, in paper order.
    docs = np.empty(int(indptr[-1]), dtype=np.int32)
    cursor = indptr[:-1].copy()
    for start in range(0, n, chunk):
        grams, papers = _chunk_pairs(texts, start, chunk, doc_bits, common_cps)
        first = _run_starts(grams)
        gram_at = np.searchsorted(keys, grams[first])
        run = np.diff(np.append(first, len(grams)))
        within = np.arange(len(grams), dtype=np.int64) - np.repeat(first, run)
        docs[np.repeat(cursor[gram_at], run) + within] = papers
        cursor[gram_at] += run
    common = ((_UNIGRAM << _TAG_SHIFT) | common_cps).astype(np.int64)
    return FieldIndex(keys.astype(np.int64), indptr, docs, common)


def _run_starts(sorted_values: NDArray[np.int64]) -> NDArray[np.int64]:
    """Where each run of equal values starts in a sorted array."""
    if len(sorted_values) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]]).astype(np.int64)


def _chunk_pairs(
    texts: Sequence[str],
    start: int,
    chunk: int,
    doc_bits: int,
    common_cps: NDArray[np.int64],
) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
    """One chunk's distinct (gram, paper) pairs sorted by gram then paper,
    without the unigrams of common characters."""
    part = _packed_chunk(texts, start, chunk, doc_bits)
    grams = part >> doc_bits
    if len(common_cps):
        unigram = (grams >> _TAG_SHIFT) == _UNIGRAM
        drop = np.zeros(len(part), dtype=np.bool_)
        drop[unigram] = np.isin(grams[unigram] & ((1 << _CJK_BITS) - 1), common_cps)
        if drop.any():
            part, grams = part[~drop], grams[~drop]
    return grams, (part & ((1 << doc_bits) - 1)).astype(np.int32)


def _common_cjk_chars(texts: Sequence[str], chunk: int = 4096) -> NDArray[np.int64]:
    """Code points of the CJK characters in more than `_COMMON_DF` of texts,
    counted on every fourth text of a large corpus: the set only decides
    which unigram postings are dropped (queries for those characters scan
    instead), so an estimate is as correct as an exact count, and cheaper."""
    step = 4 if len(texts) >= 4 * chunk else 1
    sample = texts[::step]
    df = np.zeros(1 << _CJK_BITS, dtype=np.int64)
    for start in range(0, len(sample), chunk):
        sub = sample[start : start + chunk]
        cp = np.frombuffer("\n".join(sub).encode("utf-32-le"), dtype=np.uint32)
        lengths = np.fromiter((len(t) + 1 for t in sub), dtype=np.int64, count=len(sub))
        doc = np.repeat(np.arange(len(sub), dtype=np.int64), lengths)[: len(cp)]
        cjk = _is_cjk(cp)
        pairs = (doc[cjk] << _CJK_BITS) | (cp[cjk].astype(np.int64) & ((1 << _CJK_BITS) - 1))
        pairs.sort()
        pairs = pairs[np.r_[True, pairs[1:] != pairs[:-1]]] if len(pairs) else pairs
        df += np.bincount(pairs & ((1 << _CJK_BITS) - 1), minlength=1 << _CJK_BITS)
    return np.flatnonzero(df > _COMMON_DF * len(sample)).astype(np.int64)


def _packed_chunk(texts: Sequence[str], start: int, chunk: int, doc_bits: int) -> NDArray[np.int64]:
    """Sorted, de-duplicated (gram << doc_bits | paper) of one chunk of texts."""
    sub = texts[start : start + chunk]
    keys, docs = _char_grams(sub)
    word_keys, word_docs = _word_grams(sub)
    packed = np.concatenate(
        [
            (keys << doc_bits) | (docs.astype(np.int64) + start),
            (word_keys << doc_bits) | (word_docs.astype(np.int64) + start),
        ]
    )
    packed.sort()
    # sort + neighbour compare: np.unique is many times slower here.
    unique: NDArray[np.int64] = packed[_run_starts(packed)]
    return unique


def _empty_field() -> FieldIndex:
    return FieldIndex(
        keys=np.zeros(0, dtype=np.int64),
        indptr=np.zeros(1, dtype=np.int64),
        docs=np.zeros(0, dtype=np.int32),
    )


def _is_cjk(cp: NDArray[np.uint32]) -> NDArray[np.bool_]:
    mask = np.zeros(cp.shape, dtype=np.bool_)
    for lo, hi in CJK_RANGES:
        mask |= (cp >= lo) & (cp <= hi)
    return mask


def _is_latin(cp: NDArray[np.uint32]) -> NDArray[np.bool_]:
    # The same classes as core.text's Latin words: 0-9, a-z, U+00C0-U+024F.
    return (
        ((cp >= 0x30) & (cp <= 0x39))
        | ((cp >= 0x61) & (cp <= 0x7A))
        | ((cp >= 0xC0) & (cp <= 0x24F))
    )


def _char_grams(texts: Sequence[str]) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
    """CJK bigrams and padded Latin trigrams of all texts, with their text.

    Unigrams of common characters are dropped later (`_drop_common_unigrams`).
    """
    # One newline between texts: neither CJK nor Latin, so no gram spans two.
    cp = np.frombuffer("\n".join(texts).encode("utf-32-le"), dtype=np.uint32)
    if len(cp) == 0:  # only empty texts
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
    lengths = np.fromiter((len(t) + 1 for t in texts), dtype=np.int64, count=len(texts))
    doc = np.repeat(np.arange(len(texts), dtype=np.int32), lengths)[: len(cp)]
    cjk = _is_cjk(cp)
    latin = _is_latin(cp)

    uni = np.flatnonzero(cjk)
    unigram_keys = (_UNIGRAM << _TAG_SHIFT) | cp[uni].astype(np.int64)
    unigram_docs = doc[uni]
    del uni
    bi = np.flatnonzero(cjk[:-1] & cjk[1:])
    bigram_keys = (
        (_BIGRAM << _TAG_SHIFT) | (cp[bi].astype(np.int64) << _CJK_BITS) | cp[bi + 1]
    ).astype(np.int64)
    bigram_docs = doc[bi]
    del bi, cjk

    # A padded trigram centred on each Latin character; a neighbour that is
    # not a Latin character is the pad (0).
    padded = np.where(latin, cp, 0).astype(np.int64)
    padded = np.concatenate([[0], padded, [0]])
    mid = np.flatnonzero(latin)
    trigram_keys = (
        (_TRIGRAM << _TAG_SHIFT)
        | (padded[mid] << (2 * _LATIN_BITS))
        | (padded[mid + 1] << _LATIN_BITS)
        | padded[mid + 2]
    )
    return (
        np.concatenate([unigram_keys, bigram_keys, trigram_keys]),
        np.concatenate([unigram_docs, bigram_docs, doc[mid]]),
    )


def _word_grams(texts: Sequence[str]) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
    """Stemmed Latin words as stable hashed keys (same in every process)."""
    cache: dict[str, int] = {}
    keys: list[int] = []
    counts: list[int] = []
    for text in texts:
        words = set(latin_words(text))
        counts.append(len(words))
        for word in words:
            key = cache.get(word)
            if key is None:
                key = cache[word] = word_key(word)
            keys.append(key)
    docs = np.repeat(np.arange(len(texts), dtype=np.int32), counts)
    return np.array(keys, dtype=np.int64), docs


def word_key(word: str) -> int:
    folded = fold_word(word)
    return (_WORD << _TAG_SHIFT) | ((len(folded) & 0xFF) << 32) | zlib.crc32(folded.encode("utf-8"))


# ------------------------------------------------------------ query grams


def term_grams(text: str) -> list[tuple[int, float]]:
    """(gram key, share) pairs of one normalised token (a Latin word or CJK run).

    A CJK run gives its bigrams, a lone character its unigram. A Latin word
    gives its padded trigrams plus the stemmed word itself, which carries
    `_WORD_SHARE` of the term's weight.
    """
    cps = [ord(c) for c in text]
    if not cps:
        return []
    if is_cjk_char(cps[0]):
        if len(cps) == 1:
            return [((_UNIGRAM << _TAG_SHIFT) | cps[0], 1.0)]
        pairs = itertools.pairwise(cps)
        bigrams = {(_BIGRAM << _TAG_SHIFT) | (a << _CJK_BITS) | b for a, b in pairs}
        return [(k, 1.0) for k in sorted(bigrams)]
    padded = [0, *cps, 0]
    trigrams = sorted(
        {
            (_TRIGRAM << _TAG_SHIFT)
            | (padded[i - 1] << 2 * _LATIN_BITS)
            | (padded[i] << _LATIN_BITS)
            | padded[i + 1]
            for i in range(1, len(padded) - 1)
        }
    )
    grams = [(word_key(text), _WORD_SHARE * len(trigrams))]
    return grams + [(k, 1.0 - _WORD_SHARE) for k in trigrams]


# ---------------------------------------------------------------- ranking


def filter_mask(
    index: SearchIndex, venue: str | None, year: int | None
) -> NDArray[np.bool_] | None:
    """Papers passing the venue/year filters, or None when there is no filter."""
    if venue is None and year is None:
        return None
    mask = np.ones(index.size, dtype=np.bool_)
    if venue is not None:
        folded = venue.casefold()
        codes = [i for i, v in enumerate(index.venues) if v.casefold() == folded]
        mask &= np.isin(index.venue_codes, codes)
    if year is not None:
        mask &= index.years == year
    return mask


@dataclass(frozen=True, slots=True)
class TermScores:
    """Stage 1 for one term: a score in [0, 1] per paper, and how much the
    term counts in the query (its mean IDF: `shampo` outweighs `optimizer`)."""

    scores: NDArray[np.float64]
    weight: float


def term_scores(index: SearchIndex, term: Term) -> TermScores:
    """IDF-weighted share of the term's grams each paper holds, title hits
    above summary hits; an alias lifts a paper to 0.6 of a direct match."""
    direct = _text_scores(index, term.text)
    scores = direct.scores
    for alt in term.alternatives:
        np.maximum(scores, _ALTERNATIVE * _text_scores(index, alt).scores, out=scores)
    return TermScores(scores, direct.weight)


def stage1_scores(
    index: SearchIndex, terms: Sequence[Term]
) -> tuple[NDArray[np.float64], list[float]]:
    """Per paper the weighted mean of the term scores (in [0, 1]), and the weights.

    Terms without aliases are summed by one `np.bincount` over all their
    postings instead of one dense array per term and field.
    """
    n = index.size
    weights: list[float] = []
    dense: list[tuple[float, NDArray[np.float64]]] = []
    docs: list[NDArray[np.int32]] = []
    shares: list[NDArray[np.float64]] = []
    for term in terms:
        if term.alternatives:
            found = term_scores(index, term)
            dense.append((found.weight, found.scores))
            weights.append(found.weight)
            continue
        postings = _text_postings(index, term.text)
        if isinstance(postings, TermScores):
            dense.append((postings.weight, postings.scores))
            weights.append(postings.weight)
            continue
        weight, parts = postings
        for part_docs, part_shares in parts:
            docs.append(part_docs)
            shares.append(part_shares * weight)
        weights.append(weight)
    # Dividing by the weight sum up front spares two passes over n papers.
    scale = 1.0 / sum(weights) if weights else 1.0
    if docs:
        total = np.bincount(
            np.concatenate(docs), weights=np.concatenate(shares) * scale, minlength=n
        ).astype(np.float64, copy=False)
    else:
        total = np.zeros(n, dtype=np.float64)
    for weight, scores in dense:
        total += (weight * scale) * scores
    return total, weights


def _text_scores(index: SearchIndex, text: str) -> TermScores:
    """Stage 1 of one term or alias (an alias may hold several words)."""
    postings = _text_postings(index, text)
    if isinstance(postings, TermScores):
        return postings
    weight, parts = postings
    n = index.size
    if not parts:
        return TermScores(np.zeros(n, dtype=np.float64), weight)
    scores = np.bincount(
        np.concatenate([d for d, _ in parts]),
        weights=np.concatenate([w for _, w in parts]),
        minlength=n,
    ).astype(np.float64, copy=False)
    return TermScores(scores, weight)


_Postings = tuple[float, list[tuple[NDArray[np.int32], NDArray[np.float64]]]]


def _text_postings(index: SearchIndex, text: str) -> _Postings | TermScores:
    """A term's stage 1 as (weight, [(papers, share per posting)]), already
    scaled by field weight, or dense scores for a common single character."""
    n = index.size
    toks = tokens(normalize(text))
    if len(toks) == 1 and len(toks[0]) == 1 and is_cjk_char(ord(toks[0])):
        key = (_UNIGRAM << _TAG_SHIFT) | ord(toks[0])
        if index.title.is_common(key) or index.summary.is_common(key):
            return _scan_char(index, toks[0])
    grams = [g for tok in toks for g in term_grams(tok)]
    if not grams or n == 0:
        return 1.0, []
    keys = np.array([k for k, _ in grams], dtype=np.int64)
    shares = np.array([s for _, s in grams], dtype=np.float64)
    positions = [(field, field.lookup(keys)) for field in (index.title, index.summary)]
    df_both = np.zeros(len(keys), dtype=np.int64)
    for field, pos in positions:
        df_both[pos >= 0] += field.df(pos[pos >= 0])
    weight = max(float(np.log1p(n / np.maximum(df_both, 1)).mean()), 0.1)
    parts = []
    for (field, pos), field_weight in zip(positions, (TITLE_WEIGHT, SUMMARY_WEIGHT), strict=True):
        part = _field_postings(field, pos, shares, n)
        if part is not None:
            parts.append((part[0], part[1] * field_weight))
    return weight, parts


def _scan_char(index: SearchIndex, char: str) -> TermScores:
    """A one-character query for a common character (模): a plain scan."""
    n = index.size
    in_title = np.fromiter((char in t for t in index.titles), dtype=np.bool_, count=n)
    in_summary = np.fromiter((char in t for t in index.summaries), dtype=np.bool_, count=n)
    df = int(in_title.sum() + in_summary.sum())
    scores = TITLE_WEIGHT * in_title + SUMMARY_WEIGHT * in_summary
    return TermScores(scores.astype(np.float64), float(np.log1p(n / max(df, 1))))


def _field_scores(
    field: FieldIndex, pos: NDArray[np.int64], shares: NDArray[np.float64], n: int
) -> NDArray[np.float64] | None:
    """Per paper, the IDF-weighted share of the grams found in this field."""
    part = _field_postings(field, pos, shares, n)
    if part is None:
        return None
    return np.bincount(part[0], weights=part[1], minlength=n).astype(np.float64, copy=False)


def _field_postings(
    field: FieldIndex, pos: NDArray[np.int64], shares: NDArray[np.float64], n: int
) -> tuple[NDArray[np.int32], NDArray[np.float64]] | None:
    """The postings of the found grams, each with its gram's IDF-weighted share."""
    found = pos >= 0
    if not found.any():
        return None
    df = np.zeros(len(pos), dtype=np.int64)
    df[found] = field.df(pos[found])
    weight = np.log1p(n / np.maximum(df, 1)) * shares
    # Grams in most papers say little and have huge posting lists: leave
    # them out (of the sum and of the whole) unless nothing else is left.
    common = df > _COMMON_DF * n
    usable = found & ~common
    if usable.any():
        total = weight[~common].sum()
    else:
        usable = found
        total = weight.sum()
    starts = field.indptr[pos[usable]]
    ends = field.indptr[pos[usable] + 1]
    docs = np.concatenate([field.docs[s:e] for s, e in zip(starts, ends, strict=True)])
    return docs, np.repeat(weight[usable] / total, ends - starts)


def top_candidates(
    scores: NDArray[np.float64], k: int, mask: NDArray[np.bool_] | None = None
) -> NDArray[np.int64]:
    """Positions of the k best non-zero scores (unordered)."""
    sampled = _above_sample_threshold(scores, k) if mask is None else None
    nz: NDArray[np.int64] = np.flatnonzero(scores) if sampled is None else sampled
    if mask is not None:
        nz = nz[mask[nz]]
    if len(nz) > k:
        nz = nz[np.argpartition(-scores[nz], k - 1)[:k]]
    return nz.astype(np.int64)


_SAMPLE_STEP = 16


def _above_sample_threshold(scores: NDArray[np.float64], k: int) -> NDArray[np.int64] | None:
    """The positions scoring at least a threshold read off every 16th score,
    when that leaves at least k non-zero ones (then they hold the k best);
    else None. `flatnonzero` over a large, half non-zero array costs more
    than the ranking it feeds."""
    if len(scores) < 64 * k:
        return None
    sample = scores[::_SAMPLE_STEP]
    # About 2k/16 sampled scores above it: some 2k papers overall.
    j = min(len(sample), 2 * (k // _SAMPLE_STEP + 1))
    threshold = float(np.partition(sample, len(sample) - j)[len(sample) - j])
    if threshold <= 0:
        return None
    above = np.flatnonzero(scores >= threshold)
    return above if len(above) >= k else None


def rank(
    index: SearchIndex,
    query: ParsedQuery,
    *,
    limit: int | None = None,
    candidates: int = CANDIDATES,
    highlight: int | None = None,
    eager: int | None = None,
) -> Ranking:
    """The papers matching a parsed query, best first (ids, scores, matches).

    Matched strings (for highlighting) exist for the first `highlight`
    results only (all when None); the rest get (). Of those, the first
    `eager` (all when None) are worked out here, the others when first read
    from `Ranking.matched`: a paginator shows one page of fifty results and
    should not pay for the highlight of the other nine.
    """
    mask = filter_mask(index, query.venue, query.year)
    if query.problem is not None:
        return EMPTY_RANKING
    if query.is_filter_only:
        assert mask is not None
        positions = np.flatnonzero(mask)
        order = positions[np.argsort(index.ids[positions], kind="stable")]
        chosen = order[:limit] if limit is not None else order
        return Ranking(
            tuple(int(i) for i in index.ids[chosen]),
            tuple(1.0 for _ in chosen),
            tuple(() for _ in chosen),
        )
    terms = query.terms
    s1, weights = stage1_scores(index, terms)
    cands = top_candidates(s1, candidates, mask)
    phrase = query.phrase or query.text
    scored: list[tuple[float, int, int]] = []
    cand_scores, titles, summaries = _prepared_scores(index, cands, terms, phrase, weights)
    ids = index.ids[cands].tolist()
    stage1 = s1[cands].tolist()
    for c, score in enumerate(cand_scores):
        if score <= 0:
            continue
        final = (1 - _BLEND_STAGE1) * score + _BLEND_STAGE1 * stage1[c]
        scored.append((round(final, 9), ids[c], c))
    scored.sort(key=lambda item: (-item[0], item[1]))
    if limit is not None:
        scored = scored[:limit]
    shown = len(scored) if highlight is None else max(0, highlight)
    # The highlight reuses the fields the scorer already split into words.
    matched = RankedMatches(
        [(titles[c], summaries[c]) for _, _, c in scored[:shown]],
        len(scored),
        terms,
        phrase,
        weights,
    )
    # The first page is worked out here: at 100k papers `rank` runs in a
    # worker thread, so the first reply's highlight stays off the event loop.
    matched.compute(shown if eager is None else eager)
    return Ranking(
        tuple(i for _, i, _ in scored),
        tuple(s for s, _, _ in scored),
        matched,
    )


class RankedMatches(Sequence[tuple[str, ...]]):
    """Per ranked paper the normalised strings that matched, each worked out
    on first read and kept (pure and cheap: ~0.1 ms a paper). Results past
    the highlighted ones read as (). Compares equal to the tuple of its items.

    Not thread-safe to fill from two threads at once; a search fills it in
    one thread (the ranking's) and later reads run on the event loop.
    """

    __slots__ = ("_fields", "_found", "_length", "_phrase", "_terms", "_weights")

    def __init__(
        self,
        fields: Sequence[tuple[_Text, _Text]],
        length: int,
        terms: Sequence[Term],
        phrase: str,
        weights: Sequence[float],
    ) -> None:
        # Only the highlighted papers' prepared fields are held, not the index.
        self._fields = list(fields)
        self._found: list[tuple[str, ...] | None] = [None] * len(self._fields)
        self._length = length
        self._terms = tuple(terms)
        self._phrase = phrase
        self._weights = tuple(weights)

    def compute(self, count: int) -> None:
        """Work out the first `count` results' matches now."""
        for i in range(min(max(0, count), len(self._fields))):
            self._match(i)

    def computed(self) -> int:
        """How many results' matches have been worked out (for tests)."""
        return sum(found is not None for found in self._found)

    def _match(self, i: int) -> tuple[str, ...]:
        found = self._found[i]
        if found is None:
            found = _rerank_fields(self._fields[i], self._terms, self._phrase, self._weights)[1]
            self._found[i] = found
        return found

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> tuple[str, ...]: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[tuple[str, ...], ...]: ...

    def __getitem__(self, index: int | slice) -> tuple[str, ...] | tuple[tuple[str, ...], ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(self._length)))
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        return self._match(index) if index < len(self._fields) else ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RankedMatches | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"RankedMatches({self.computed()} of {self._length} worked out)"


# ------------------------------------------------------------- re-ranking


class _Text:
    """A normalised field prepared for term matching; the Latin word views
    are computed on first use (a Chinese-only query never needs them)."""

    __slots__ = ("_bounds", "_compact", "_folded", "_words", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._words: list[str] | None = None
        self._folded: dict[str, str] | None = None
        self._compact = ""
        self._bounds: frozenset[int] = frozenset()

    @classmethod
    def of(cls, text: str) -> _Text:
        return cls(text)

    def _split(self) -> list[str]:
        if self._words is None:
            self._words = latin_words(self.text)
        return self._words

    def _join(self) -> None:
        """Run-together words and their boundaries, for `has_piece` only."""
        if self._words is None or not self._bounds:
            words = self._split()
            self._compact = "".join(words)
            self._bounds = frozenset(itertools.accumulate(map(len, words), initial=0))

    @property
    def words(self) -> list[str]:
        return self._split()

    @property
    def folded(self) -> dict[str, str]:
        """Folded (stemmed) word -> a word in the text with that fold (the last)."""
        if self._folded is None:
            words = self._split()
            self._folded = dict(zip(map(fold_word, words), words, strict=True))
        return self._folded

    @property
    def compact(self) -> str:
        """The Latin words run together."""
        self._join()
        return self._compact

    def has_piece(self, piece: str) -> bool:
        """`piece` in the run-together words, starting or ending at a word
        boundary: `lora` in QLoRA, `scissorhands` in "scissor hands", but
        not `rope` inside "property"."""
        compact = self.compact
        at = compact.find(piece)
        while at >= 0:
            if at in self._bounds or at + len(piece) in self._bounds:
                return True
            at = compact.find(piece, at + 1)
        return False


def rerank_one(
    title: str,
    summary: str,
    terms: Sequence[Term],
    phrase: str,
    weights: Sequence[float] | None = None,
) -> tuple[float, tuple[str, ...]]:
    """Score one paper against the query terms; 0 when no term matches.

    Per term the best of: title match, summary match x 0.7, aliases x 0.6.
    The weighted mean over terms is the coverage; a bonus when the whole
    query is a fragment of the title, and a small one when every term matched.
    """
    return _rerank_fields((_Text.of(title), _Text.of(summary)), terms, phrase, weights)


def _rerank_fields(
    fields: tuple[_Text, _Text],
    terms: Sequence[Term],
    phrase: str,
    weights: Sequence[float] | None = None,
) -> tuple[float, tuple[str, ...]]:
    weights = list(weights) if weights is not None else [1.0] * len(terms)
    title = fields[0].text
    strengths: list[float] = []
    matched: list[str] = []
    for term in terms:
        best, hits = _term_match(term.text, fields)
        for alt in term.alternatives:
            alt_score, alt_hits = _phrase_match(_normalized(alt), fields)
            if alt_score * _ALTERNATIVE > best:
                best, hits = alt_score * _ALTERNATIVE, alt_hits
        strengths.append(best)
        matched.extend(hits)
    _credit_joined_pairs(terms, fields, strengths, matched)
    if not any(strengths):
        return 0.0, ()
    coverage = sum(w * s for w, s in zip(weights, strengths, strict=True)) / sum(weights)
    bonus = 0.0
    if len(terms) > 1 and phrase and phrase in title:
        bonus += _TITLE_PHRASE_BONUS
    if all(s >= 0.5 for s in strengths):
        bonus += _ALL_TERMS_BONUS
    return coverage + bonus, tuple(dict.fromkeys(matched))


def rerank_scores(
    index: SearchIndex,
    cands: NDArray[np.int64],
    terms: Sequence[Term],
    phrase: str,
    weights: Sequence[float],
) -> list[float]:
    """`rerank_one`'s score for every candidate, without its per-paper work
    where the index already knows the answer.

    An exact (stemmed) word is a lookup in the word postings, and a field is
    only read when what it could add still changes the term's strength: a
    title hit is the best a term can do, a summary can add at most 0.7, an
    alias at most 0.6. Scores are identical to `rerank_one`'s (tested).
    """
    return _prepared_scores(index, cands, terms, phrase, weights)[0]


def _prepared_scores(
    index: SearchIndex,
    cands: NDArray[np.int64],
    terms: Sequence[Term],
    phrase: str,
    weights: Sequence[float],
) -> tuple[list[float], list[_Text], list[_Text]]:
    """`rerank_scores`, with the candidates' prepared fields for reuse."""
    cand_list = cands.tolist()
    titles = [_Text(index.titles[p]) for p in cand_list]
    summaries = [_Text(index.summaries[p]) for p in cand_list]
    columns = [_term_strengths(index, cands, term, titles, summaries) for term in terms]
    rows = [list(row) for row in zip(*columns, strict=True)] if columns else []
    _credit_joined_pairs_fast(index, cands, terms, titles, summaries, rows)
    total_weight = sum(weights)
    out: list[float] = []
    for title, strengths in zip(titles, rows, strict=True):
        if not any(strengths):
            out.append(0.0)
            continue
        coverage = sum(w * s for w, s in zip(weights, strengths, strict=True)) / total_weight
        bonus = 0.0
        if len(terms) > 1 and phrase and phrase in title.text:
            bonus += _TITLE_PHRASE_BONUS
        if all(s >= 0.5 for s in strengths):
            bonus += _ALL_TERMS_BONUS
        out.append(coverage + bonus)
    return out, titles, summaries


def _has_word(field: FieldIndex, cands: NDArray[np.int64], word: str) -> NDArray[np.bool_]:
    """Per candidate: does the field hold this (stemmed) word? From the postings."""
    at = int(field.lookup(np.array([word_key(word)], dtype=np.int64))[0])
    if at < 0:
        return np.zeros(len(cands), dtype=np.bool_)
    docs = field.docs[field.indptr[at] : field.indptr[at + 1]]
    where = np.minimum(np.searchsorted(docs, cands), len(docs) - 1)
    return np.asarray(docs[where] == cands, dtype=np.bool_)


def _term_strengths(
    index: SearchIndex,
    cands: NDArray[np.int64],
    term: Term,
    titles: Sequence[_Text],
    summaries: Sequence[_Text],
) -> list[float]:
    """One term's strength in every candidate, as `rerank_one` computes it."""
    text = term.text
    if _parts(text) != (text,) or is_cjk_char(ord(text[0])):
        # Phrases and CJK runs: plain string tests, already cheap.
        out = [_term_match(text, (t, s))[0] for t, s in zip(titles, summaries, strict=True)]
    else:
        in_title = _has_word(index.title, cands, text).tolist()
        in_summary = _has_word(index.summary, cands, text).tolist()
        out = []
        for i, (t, s) in enumerate(zip(titles, summaries, strict=True)):
            if in_title[i]:
                out.append(_EXACT)
                continue
            best = _latin_near(text, t)
            if best < _EXACT * _SUMMARY_FACTOR:
                if in_summary[i]:
                    best = _EXACT * _SUMMARY_FACTOR
                elif best < _SUBSTRING * _SUMMARY_FACTOR:
                    strength = _latin_near(text, s) * _SUMMARY_FACTOR
                    if strength > best:
                        best = strength
            out.append(best)
    if term.alternatives:
        for i, (t, s) in enumerate(zip(titles, summaries, strict=True)):
            if out[i] >= _ALTERNATIVE:
                continue  # an alias scores at most 0.6
            for alt in term.alternatives:
                alt_score, _ = _phrase_match(_normalized(alt), (t, s))
                if alt_score * _ALTERNATIVE > out[i]:
                    out[i] = alt_score * _ALTERNATIVE
    return out


def _credit_joined_pairs_fast(
    index: SearchIndex,
    cands: NDArray[np.int64],
    terms: Sequence[Term],
    titles: Sequence[_Text],
    summaries: Sequence[_Text],
    rows: list[list[float]],
) -> None:
    """`_credit_joined_pairs` for every candidate, skipping fields that
    cannot raise either term of the pair any more."""
    in_title = _EXACT * _JOINED
    in_summary = _JOINED * _SUMMARY_FACTOR
    for i in range(len(terms) - 1):
        a, b = terms[i].text, terms[i + 1].text
        if not (a.isalnum() and b.isalnum() and a.isascii() and b.isascii()):
            continue
        joined = a + b
        title_word = _has_word(index.title, cands, joined).tolist()
        summary_word = _has_word(index.summary, cands, joined).tolist()
        piece = len(joined) >= 6
        for c, strengths in enumerate(rows):
            if strengths[i] >= in_title and strengths[i + 1] >= in_title:
                continue
            if title_word[c] or (piece and titles[c].has_piece(joined)):
                strength = in_title
            elif strengths[i] >= in_summary and strengths[i + 1] >= in_summary:
                continue
            elif summary_word[c] or (piece and summaries[c].has_piece(joined)):
                strength = in_summary
            else:
                continue
            strengths[i] = max(strengths[i], strength)
            strengths[i + 1] = max(strengths[i + 1], strength)


# The same few query strings are looked at for every candidate: cache them.
@lru_cache(maxsize=4096)
def _parts(text: str) -> tuple[str, ...]:
    return tuple(tokens(text))


@lru_cache(maxsize=4096)
def _normalized(text: str) -> str:
    return normalize(text)


def _term_match(text: str, fields: tuple[_Text, _Text]) -> tuple[float, list[str]]:
    """Best match of one term in title or summary (summary x 0.7).

    A term of several tokens (an alias like `mixture of experts`) scores 1
    as a phrase, else 0.95 x the mean of its tokens' matches.
    """
    parts = _parts(text)
    if len(parts) > 1:
        best, hits = _phrase_match(text, fields)
        if best < _EXACT:
            matches = [_term_match(part, fields) for part in parts]
            mean = sum(m for m, _ in matches) / len(matches)
            if _PHRASE_PARTS * mean > best:
                best = _PHRASE_PARTS * mean
                hits = [h for _, found in matches for h in found]
        return best, hits
    best = 0.0
    hits = []
    for field, factor in zip(fields, (1.0, _SUMMARY_FACTOR), strict=True):
        strength, found = (
            _cjk_match(text, field) if is_cjk_char(ord(text[0])) else _latin_match(text, field)
        )
        if strength * factor > best:
            best = strength * factor
        hits.extend(found)
    return best, hits


def _phrase_match(alias: str, fields: tuple[_Text, _Text]) -> tuple[float, list[str]]:
    """An alias (maybe several words) matches when it occurs verbatim."""
    best = 0.0
    hits: list[str] = []
    for field, factor in zip(fields, (1.0, _SUMMARY_FACTOR), strict=True):
        if alias and _contains_phrase(field, alias):
            best = max(best, factor)
            hits.append(alias)
    return best, hits


def _contains_phrase(field: _Text, alias: str) -> bool:
    """Whole-word containment for Latin aliases (RL never matches URL),
    plain containment for anything with CJK."""
    parts = _parts(alias)
    if not parts:
        return False
    if any(is_cjk_run(p) for p in parts):
        return alias in field.text
    if len(parts) == 1:
        return fold_word(parts[0]) in field.folded
    return f" {' '.join(parts)} " in f" {' '.join(field.words)} "


def _latin_near(word: str, field: _Text) -> float:
    """`_latin_match`'s strength when the word is known not to occur exactly."""
    if len(word) < 4 or not field.words:
        return 0.0
    if field.has_piece(word):
        return _SUBSTRING
    cutoff = 80 if len(word) >= 5 else 86
    best = process.extractOne(word, field.words, scorer=fuzz.ratio, score_cutoff=cutoff)
    return _FUZZY * best[1] / 100 if best is not None else 0.0


def _latin_match(word: str, field: _Text) -> tuple[float, list[str]]:
    folded = fold_word(word)
    if folded in field.folded:
        return _EXACT, [field.folded[folded]]
    if len(word) >= 4 and field.has_piece(word):
        # Highlight the whole word holding the piece (QLoRA for `lora`).
        return _SUBSTRING, [w for w in field.words if word in w][:1] or [word]
    if len(word) >= 4 and field.words:
        cutoff = 80 if len(word) >= 5 else 86
        best = process.extractOne(word, field.words, scorer=fuzz.ratio, score_cutoff=cutoff)
        if best is not None:
            return _FUZZY * best[1] / 100, [best[0]]
    return 0.0, []


def _cjk_match(run: str, field: _Text) -> tuple[float, list[str]]:
    if run in field.text:
        return _EXACT, [run]
    if len(run) < 2:
        return 0.0, []
    present = [run[i : i + 2] in field.text for i in range(len(run) - 1)]
    if not any(present):
        return 0.0, []
    return _PARTIAL_CJK * sum(present) / len(present), _covered_spans(run, present, field.text)


def _covered_spans(run: str, present: list[bool], text: str) -> list[str]:
    """The longest pieces of a CJK run, made of matched bigrams, found in the text."""
    spans: list[str] = []
    i = 0
    while i < len(present):
        if not present[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(present) and present[j + 1]:
            j += 1
        piece = run[i : j + 2]
        if piece in text:
            spans.append(piece)
        else:
            spans.extend(run[k : k + 2] for k in range(i, j + 1))
        i = j + 1
    return spans


def _credit_joined_pairs(
    terms: Sequence[Term], fields: tuple[_Text, _Text], strengths: list[float], matched: list[str]
) -> None:
    """`refined web` finds RefinedWeb: adjacent Latin terms written as one word."""
    for i in range(len(terms) - 1):
        a, b = terms[i].text, terms[i + 1].text
        if not (a.isalnum() and b.isalnum() and a.isascii() and b.isascii()):
            continue
        joined = a + b
        for field, factor in zip(fields, (1.0, _SUMMARY_FACTOR), strict=True):
            word = field.folded.get(fold_word(joined))
            if word is not None or (len(joined) >= 6 and field.has_piece(joined)):
                strength = _JOINED * factor
                strengths[i] = max(strengths[i], strength)
                strengths[i + 1] = max(strengths[i + 1], strength)
                if word is not None:
                    matched.append(word)
                break


# ------------------------------------------------------ did you mean ...


def suggest_titles(index: SearchIndex, query: ParsedQuery, limit: int = 3) -> tuple[int, ...]:
    """Ids of the titles closest to the query, for a "did you mean" reply."""
    if not query.terms or index.size == 0:
        return ()
    grams = [g for tok in tokens(query.text) for g in term_grams(tok)]
    if not grams:
        return ()
    keys = np.array([k for k, _ in grams], dtype=np.int64)
    shares = np.array([s for _, s in grams], dtype=np.float64)
    # Title grams only: close titles share trigrams even when no term matched.
    title_scores = _field_scores(index.title, index.title.lookup(keys), shares, index.size)
    if title_scores is None:
        return ()
    mask = filter_mask(index, query.venue, query.year)
    cands = top_candidates(title_scores, 50, mask)
    text = query.text
    scored = []
    for pos in cands.tolist():
        similarity = fuzz.WRatio(text, index.titles[pos])
        if similarity >= 50:
            scored.append((-similarity, int(index.ids[pos])))
    scored.sort()
    return tuple(i for _, i in scored[:limit])


# ------------------------------------------------------------ baseline


@dataclass(frozen=True, slots=True)
class BaselineCorpus:
    """Texts lower-cased once, for the naive linear-scan ranker."""

    ids: tuple[int, ...]
    titles: tuple[str, ...]
    summaries: tuple[str, ...]


def baseline_corpus(papers: Sequence[Paper]) -> BaselineCorpus:
    return BaselineCorpus(
        tuple(p.id for p in papers),
        tuple(p.title.lower() for p in papers),
        tuple(p.summary.lower() for p in papers),
    )


def baseline_rank(
    corpus: BaselineCorpus, query: str, limit: int = 10
) -> tuple[list[int], list[float]]:
    """arxiv-sanity-lite's `search_rank`, with the text lower-cased once
    instead of per query: per query word, 20 if it is in the title, plus its
    count in the summary (at most 3); a scan over every paper. For the
    benchmark only."""
    qs = query.lower().strip().split()
    pairs: list[tuple[float, int]] = []
    for pid, title, summary in zip(corpus.ids, corpus.titles, corpus.summaries, strict=True):
        score = 20.0 * sum(int(title.count(q) > 0) for q in qs)
        score += 1.0 * sum(min(3, summary.count(q)) for q in qs)
        if score > 0:
            pairs.append((score, pid))
    pairs.sort(key=lambda item: (-item[0], item[1]))
    top = pairs[:limit]
    return [pid for _, pid in top], [s for s, _ in top]


# --------------------------------------------------------- persistence


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
    )
    n = index.size
    if not (len(index.titles) == len(index.summaries) == len(index.years) == n):
        raise ValueError("search index arrays disagree on the number of papers")
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
