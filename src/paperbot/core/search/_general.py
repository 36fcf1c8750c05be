"""How general an English word is, from a general English word-frequency
list shipped with the bot (`data/english_frequency.tsv`, made by
`scripts/english_frequency.py` from the `wordfreq` package).

The corpus's own document frequency cannot tell: its summaries are
Chinese, so `small`, `real` or `make` occur in a handful of English titles
and look as rare as `shampoo`. A word's frequency in English at large gives
the share of English abstracts that would say it, and so an IDF the
corpus's IDF of that word should not exceed.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

from paperbot.core.search._weights import ABSTRACT_WORDS
from paperbot.core.text import fold_word

_FREQUENCY_FILE = Path(__file__).resolve().parent.parent.parent / "data" / "english_frequency.tsv"


@cache
def _zipf_table() -> dict[str, float]:
    """Word -> Zipf frequency (log10 of occurrences per billion words)."""
    table: dict[str, float] = {}
    # Shipped package data read once: the same bytes every run, no state.
    for line in _FREQUENCY_FILE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            word, _, zipf = line.partition("\t")
            table[word] = float(zipf)
    return table


def zipf_frequency(word: str) -> float | None:
    """The word's Zipf frequency in general English, or None when it is
    rarer than the list holds (or not one plain English word)."""
    return _zipf_table().get(word)


def general_idf(word: str) -> float | None:
    """The IDF the word would have over English abstracts of
    `ABSTRACT_WORDS` words (Poisson chance that one says it at least once),
    or None for a word the general list does not hold (nor its stem)."""
    # The index meets inflections (`inputs` finds `input`), so a word is as
    # general as the commonest form its stem stands for.
    forms = [z for z in (zipf_frequency(word), zipf_frequency(fold_word(word))) if z is not None]
    if not forms:
        return None
    zipf = max(forms)
    per_word = 10.0 ** (zipf - 9.0)
    share = -math.expm1(-per_word * ABSTRACT_WORDS)
    return math.log1p(1.0 / share)


def english_idf(corpus_idf: float, general: float | None) -> float:
    """A word's IDF from both estimates: the corpus's (what this corpus's
    titles show) and the general one (what English at large shows). Their
    mean, never above the corpus's: neither alone is right (the corpus's
    English is thin; `attention` is common English but a topic here), and a
    general estimate never makes a word weigh more."""
    if general is None:
        return corpus_idf
    return min(corpus_idf, (corpus_idf + general) / 2)
