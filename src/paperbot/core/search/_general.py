"""How general a word is, from general word-frequency lists shipped with
the bot (`data/english_frequency.tsv`, `data/chinese_frequency.tsv`, made by
`scripts/general_frequency.py` from the `wordfreq` package).

English: the corpus's own document frequency cannot tell, since its
summaries are Chinese, so `small`, `real` or `make` occur in a handful of
English titles and look as rare as `shampoo`. A word's frequency in English
at large gives the share of English abstracts that would say it, and so an
IDF the corpus's IDF of that word should not exceed.

Chinese: the summaries' own frequencies are fair, and a question typed in
everyday Chinese (`大模型里是不是好多注意力头其实在摸鱼`) says words they
hardly use. Rare in the summaries, such a word weighs like a topic's term
(其实 and 是不是 3.9 beside 注意力头's 3.1) and finds the papers that happen
to say it. But papers say their topics' words more often than Chinese at
large does (训练, 数据, 能力) and everyday words no more often, so an
everyday word they say less than Chinese at large, in neither language, is
the question's frame (`says_less_than_usual`).
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

from paperbot.core.search._weights import (
    ABSTRACT_WORDS,
    FRAME_SHARE,
    FRAME_ZIPF,
    SUMMARY_WORDS_ZH,
)
from paperbot.core.text import fold_word, is_cjk_run

_DATA = Path(__file__).resolve().parent.parent.parent / "data"


@cache
def _zipf_table(name: str) -> dict[str, float]:
    """Word -> Zipf frequency (log10 of occurrences per billion words)."""
    table: dict[str, float] = {}
    # Shipped package data read once: the same bytes every run, no state.
    for line in (_DATA / name).read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            word, _, zipf = line.partition("\t")
            table[word] = float(zipf)
    return table


def zipf_frequency(word: str) -> float | None:
    """The word's Zipf frequency in general English, or None when it is
    rarer than the list holds (or not one plain English word)."""
    return _zipf_table("english_frequency.tsv").get(word)


def chinese_zipf(word: str) -> float | None:
    """The word's Zipf frequency in general (simplified) Chinese, or None
    when it is rarer than the list holds (`FRAME_ZIPF`: no frame word)."""
    return _zipf_table("chinese_frequency.tsv").get(word)


def _share(zipf: float, words: int) -> float:
    """The share of texts of `words` words that say a word of this Zipf
    frequency at least once (Poisson)."""
    return -math.expm1(-(10.0 ** (zipf - 9.0)) * words)


def says_less_than_usual(word: str, idf: float) -> bool:
    """Whether the papers say `word` (its IDF over them: ln(1 + N / df))
    less than its language at large predicts for a text of their length:
    fewer summaries than an everyday Chinese word (Zipf `FRAME_ZIPF` or
    more: 以后, 其实) is said in, or fewer papers than an English word of
    the general list is said in as an abstract. A rarer word, or a phrase,
    tells nothing: False. Shares, not counts, so it holds at any size."""
    if is_cjk_run(word):
        zipf, words = chinese_zipf(word), SUMMARY_WORDS_ZH
        if zipf is not None and zipf < FRAME_ZIPF:
            return False
    else:
        zipf, words = _english_zipf(word), ABSTRACT_WORDS
    if zipf is None:
        return False
    return idf > math.log1p(1.0 / (FRAME_SHARE * _share(zipf, words)))


def general_idf(word: str) -> float | None:
    """The IDF the word would have over English abstracts of
    `ABSTRACT_WORDS` words (Poisson chance that one says it at least once),
    or None for a word the general list does not hold (nor its stem)."""
    zipf = _english_zipf(word)
    return None if zipf is None else math.log1p(1.0 / _share(zipf, ABSTRACT_WORDS))


def _english_zipf(word: str) -> float | None:
    """The Zipf frequency of the word or its folded form, the commoner: the
    index meets inflections (`inputs` finds `input`), so a word is as
    general as the commonest form its stem stands for."""
    forms = [z for z in (zipf_frequency(word), zipf_frequency(fold_word(word))) if z is not None]
    return max(forms, default=None)


def english_idf(corpus_idf: float, general: float | None) -> float:
    """A word's IDF from both estimates: the corpus's (what this corpus's
    titles show) and the general one (what English at large shows). Their
    mean, never above the corpus's: neither alone is right (the corpus's
    English is thin; `attention` is common English but a topic here), and a
    general estimate never makes a word weigh more."""
    if general is None:
        return corpus_idf
    return min(corpus_idf, (corpus_idf + general) / 2)
