"""Gram keys: CJK unigrams and bigrams, padded Latin trigrams and stemmed
Latin words, each an int64 with its kind in the high bits. The same keys
come from a paper's text (`char_grams`, `word_grams`, vectorised over many
texts) and from a query term (`term_grams`)."""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from paperbot.core.search._weights import WORD_SHARE
from paperbot.core.text import CJK_RANGES, fold_word, is_cjk_char, latin_words

# Gram keys are int64: a kind tag in bits 40+ and the gram's code below.
TAG_SHIFT = 40
TRIGRAM, UNIGRAM, BIGRAM, WORD = 1, 2, 3, 4
LATIN_BITS = 10  # Latin letters/digits used by core.text stop at U+024F
CJK_BITS = 18  # CJK ideographs stop below U+30000


def cjk_mask(cp: NDArray[np.uint32]) -> NDArray[np.bool_]:
    """Which code points are CJK (core.text's one definition, vectorised)."""
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


def text_codes(texts: Sequence[str]) -> tuple[NDArray[np.uint32], NDArray[np.int32]]:
    """The code points of the texts joined by newlines, each with its
    text's position: what `char_grams` and `chunk_words` read."""
    # One newline between texts: neither CJK nor Latin, so no gram spans two.
    cp = np.frombuffer("\n".join(texts).encode("utf-32-le"), dtype=np.uint32)
    lengths = np.fromiter((len(t) + 1 for t in texts), dtype=np.int64, count=len(texts))
    doc = np.repeat(np.arange(len(texts), dtype=np.int32), lengths)[: len(cp)]
    return cp, doc


def joined_codes(joined: str) -> tuple[NDArray[np.uint32], NDArray[np.int32]]:
    """`text_codes` of texts given joined by NUL (`PackedTexts.joined`):
    the same, but for the position given each NUL, which no gram reads."""
    cp = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
    doc = np.cumsum(cp == 0, dtype=np.int32)
    return cp, doc


def char_grams(
    texts: Sequence[str],
    codes: tuple[NDArray[np.uint32], NDArray[np.int32]] | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
    """CJK unigrams and bigrams and padded Latin trigrams of all texts, with
    the position of their text. Not de-duplicated. `codes`: their
    `text_codes`, when worked out already.

    The index build drops the unigrams of common characters afterwards.
    """
    cp, doc = text_codes(texts) if codes is None else codes
    if len(cp) == 0:  # only empty texts
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
    cjk = cjk_mask(cp)
    latin = _is_latin(cp)

    uni = np.flatnonzero(cjk)
    unigram_keys = (UNIGRAM << TAG_SHIFT) | cp[uni].astype(np.int64)
    unigram_docs = doc[uni]
    del uni
    bigram_keys, bigram_docs = _bigrams(cp, doc, cjk)
    del cjk

    # A padded trigram centred on each Latin character; a neighbour that is
    # not a Latin character is the pad (0).
    padded = np.where(latin, cp, 0).astype(np.int64)
    padded = np.concatenate([[0], padded, [0]])
    mid = np.flatnonzero(latin)
    trigram_keys = (
        (TRIGRAM << TAG_SHIFT)
        | (padded[mid] << (2 * LATIN_BITS))
        | (padded[mid + 1] << LATIN_BITS)
        | padded[mid + 2]
    )
    return (
        np.concatenate([unigram_keys, bigram_keys, trigram_keys]),
        np.concatenate([unigram_docs, bigram_docs, doc[mid]]),
    )


def cjk_bigrams(texts: Sequence[str]) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
    """The CJK bigrams of `char_grams`, alone (in the same order)."""
    cp, doc = text_codes(texts)
    return _bigrams(cp, doc, cjk_mask(cp))


def _bigrams(
    cp: NDArray[np.uint32], doc: NDArray[np.int32], cjk: NDArray[np.bool_]
) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
    bi = np.flatnonzero(cjk[:-1] & cjk[1:])
    keys = ((BIGRAM << TAG_SHIFT) | (cp[bi].astype(np.int64) << CJK_BITS) | cp[bi + 1]).astype(
        np.int64
    )
    return keys, doc[bi]


def word_grams(
    texts: Sequence[str], cache: dict[str, int] | None = None
) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
    """Stemmed Latin words as stable hashed keys (same in every process);
    `cache` (word -> key) may be shared by calls over one field's chunks."""
    cache = {} if cache is None else cache
    keys: list[int] = []
    counts: list[int] = []
    for text in texts:
        words = set(latin_words(text))
        counts.append(len(words))
        # Set and map operations run in C: only new words reach Python code.
        for word in words.difference(cache):
            cache[word] = word_key(word)
        keys.extend(map(cache.__getitem__, words))
    docs = np.repeat(np.arange(len(texts), dtype=np.int32), counts)
    return np.array(keys, dtype=np.int64), docs


def chunk_words(
    codes: tuple[NDArray[np.uint32], NDArray[np.int32]],
) -> tuple[list[str], NDArray[np.int32]]:
    """The Latin words of the texts whose `text_codes` these are, in order
    (each text's `latin_words`, one after the other, repeats kept), with
    the position of their text: read off the code points (a word is a run
    of Latin ones), no regex over the texts."""
    cp, doc = codes
    latin = _is_latin(cp)
    # Every run of Latin code points starts at an odd edge and ends at the next.
    edges = np.flatnonzero(np.diff(latin.view(np.int8), prepend=0, append=0))
    starts, ends = edges[::2], edges[1::2]
    # The Latin code points alone, a space after each word (where it ended).
    keep = latin.copy()
    keep[ends[ends < len(keep)]] = True
    spaced = np.where(latin, cp, ord(" ")).astype(np.uint32)[keep]
    words = spaced.tobytes().decode("utf-32-le").split()
    return words, doc[starts]


def chunk_word_keys(words: list[str], cache: dict[str, int]) -> NDArray[np.int64]:
    """The `word_key` of each word, through `cache` (word -> key, shared by
    a field's chunks, or by queries' fusions): only words new to it reach
    Python code."""
    new = set(words).difference(cache)
    if new:
        cache.update(zip(new, map(_new_word_key, new), strict=True))
    return np.fromiter(map(cache.__getitem__, words), dtype=np.int64, count=len(words))


def _new_word_key(word: str) -> int:
    """`word_key` of a word met for the first time: folded without
    `fold_word`'s cache, which a field's 100,000s of distinct words (new to
    it, and evicting each other) only slow down."""
    return _folded_key(_fold_uncached(word))


_fold_uncached = fold_word.__wrapped__


def word_key(word: str) -> int:
    """The gram key of a (stemmed) Latin word: its length and CRC-32."""
    return _folded_key(fold_word(word))


def _folded_key(folded: str) -> int:
    return (WORD << TAG_SHIFT) | ((len(folded) & 0xFF) << 32) | zlib.crc32(folded.encode("utf-8"))


# ------------------------------------------------------------ query grams


def term_grams(text: str) -> list[tuple[int, float]]:
    """(gram key, share) pairs of one normalised token (a Latin word or CJK run).

    A CJK run gives its bigrams, a lone character its unigram. A Latin word
    gives its padded trigrams plus the stemmed word itself, which carries
    `WORD_SHARE` of the term's weight.
    """
    cps = [ord(c) for c in text]
    if not cps:
        return []
    if is_cjk_char(cps[0]):
        if len(cps) == 1:
            return [((UNIGRAM << TAG_SHIFT) | cps[0], 1.0)]
        pairs = itertools.pairwise(cps)
        bigrams = {(BIGRAM << TAG_SHIFT) | (a << CJK_BITS) | b for a, b in pairs}
        return [(k, 1.0) for k in sorted(bigrams)]
    padded = [0, *cps, 0]
    trigrams = sorted(
        {
            (TRIGRAM << TAG_SHIFT)
            | (padded[i - 1] << 2 * LATIN_BITS)
            | (padded[i] << LATIN_BITS)
            | padded[i + 1]
            for i in range(1, len(padded) - 1)
        }
    )
    grams = [(word_key(text), WORD_SHARE * len(trigrams))]
    return grams + [(k, 1.0 - WORD_SHARE) for k in trigrams]
