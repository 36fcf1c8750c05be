"""Text normalisation shared by parsing, search and topic matching.

Pure functions only: everything here is deterministic and does no I/O, so the
same normal form is used when the corpus is indexed and when a user types.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import opencc

# Taiwan vocabulary (資料 -> 数据) needs the phrase-level `tw2sp` table; plain
# `t2s` only swaps characters. Converting simplified text is a no-op.
_TO_SIMPLIFIED = opencc.OpenCC("tw2sp")

# Bidi and zero-width controls: invisible, and they split or glue words.
_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u00ad]")

# CJK ideographs: Extension A, the unified block, compatibility ideographs and
# the supplementary planes (Extensions B and later). The one definition: the
# regex class, the per-character test and search's vectorised test use it.
CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0x20000, 0x2FFFF),
)
CJK_CLASS = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in CJK_RANGES)

# A CJK run, or a run of Latin letters/digits (with inner ' - . + kept out).
_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")
_LATIN_WORD = re.compile(r"[0-9a-z\u00c0-\u024f]+")
_TOKEN = re.compile(f"[{CJK_CLASS}]+|[0-9a-z\u00c0-\u024f]+")
_TOKEN_OR_BREAK = re.compile(f"{_TOKEN.pattern}|\n")

# British -> American spelling, applied to single words before stemming.
_SPELLING = (
    (re.compile(r"isation"), "ization"),
    (re.compile(r"ise(s|d)?$"), r"ize\1"),
    (re.compile(r"ising$"), "izing"),
    (re.compile(r"yse(s|d)?$"), r"yze\1"),
    (re.compile(r"our$"), "or"),
)


# Full-width punctuation and the ideographic space, in nearly every Chinese
# summary. Each makes a text not NFKC, and CPython normalises such a text on
# its slow path (~70 ns a character: seconds for a 100,000-paper load).
# Replaced by their decompositions first (their ASCII forms), most texts are
# NFKC already, which the quick check confirms at a few ns a character; the
# result is the same, since NFKC composes the full decomposition.
_WIDE_FORMS = tuple(
    (wide, unicodedata.normalize("NFKD", wide)) for wide in "，（）：；？！％\u3000"
)


def nfkc(text: str) -> str:
    """`unicodedata.normalize("NFKC", text)`, faster for Chinese text."""
    for wide, narrow in _WIDE_FORMS:
        text = text.replace(wide, narrow)  # the same string back when absent
    if unicodedata.is_normalized("NFKC", text):
        return text
    return unicodedata.normalize("NFKC", text)


def strip_invisible(text: str) -> str:
    """Drop zero-width and bidi control characters."""
    return _INVISIBLE.sub("", text)


def collapse_whitespace(text: str) -> str:
    """Turn every run of whitespace into one space and trim the ends."""
    return " ".join(text.split())


# A prefix that is no word of its own and makes another word of the one it
# is hyphenated to: "re-evaluation" is no evaluation, "non-convergence" no
# convergence. Written as one word, it is one token, as "reevaluation" is.
# ("pre-" and "co-" are left: "pre-training" is pretraining as much as
# "pre training" is, and the vocabulary says both.)
_BOUND_PREFIX = re.compile(r"(?<![0-9a-z\u00c0-\u024f])(re|non|un|mis)-(?=[a-z])")


def join_prefixes(text: str) -> str:
    """Join a hyphenated bound prefix to its word (`re-evaluation` -> `reevaluation`)."""
    return _BOUND_PREFIX.sub(r"\1", text) if "-" in text else text


def title_key(title: str) -> str:
    """The identity of a paper: NFKC, case-folded, whitespace collapsed."""
    if title.isascii():
        # The usual title: NFKC leaves ASCII as it is, nothing in it is
        # invisible, and `casefold` is `lower` there.
        return " ".join(title.lower().split())
    return collapse_whitespace(nfkc(strip_invisible(title)).casefold())


class TitleKeys(dict[str, str]):
    """`title_key` that remembers, for one load: parsing, the shrink guard,
    the stored records to read and the plan each need every title's key,
    and working it out is most of their cost at 100,000 papers.

    A dict whose misses work the key out: a call is a lookup in C, with no
    Python frame (it is made five times per title in a load).
    """

    def __missing__(self, title: str) -> str:
        key = self[title] = title_key(title)
        return key

    __call__ = dict.__getitem__


@lru_cache(maxsize=4096)
def to_simplified(text: str) -> str:
    """Traditional (and Taiwan-vocabulary) Chinese to simplified."""
    return str(_TO_SIMPLIFIED.convert(text))


def normalize(text: str) -> str:
    """The searchable form: NFKC, case-folded, simplified, whitespace
    collapsed, bound prefixes joined to their words."""
    folded = nfkc(strip_invisible(text)).casefold()
    simplified = to_simplified(folded) if has_cjk(folded) else folded
    return collapse_whitespace(join_prefixes(simplified))


def normalize_bulk(texts: list[str], chunk: int = 1000) -> None:
    """`normalize` over many texts in place, a chunk per call (a third
    faster; in place so raw and normal forms never coexist in full).

    A private-use separator survives NFKC, case folding and OpenCC
    unchanged. Chunks keep the joined strings small, and OpenCC is called
    around `to_simplified`'s cache, which would keep every chunk alive.
    """
    sep = "\ue000"
    for start in range(0, len(texts), chunk):
        part = texts[start : start + chunk]
        joined = nfkc(strip_invisible(sep.join(part))).casefold()
        if has_cjk(joined):
            joined = to_simplified.__wrapped__(joined)
        # Once per chunk, not per text: the separator is no word character
        # and no whitespace, so each piece joins as it would alone.
        pieces = join_prefixes(joined).split(sep)
        del joined
        if len(pieces) != len(part) or any(sep in t for t in part):
            texts[start : start + len(part)] = [normalize(t) for t in part]
        else:
            texts[start : start + len(part)] = list(map(collapse_whitespace, pieces))


def normalize_columns(titles: list[str], summaries: list[str]) -> tuple[list[str], list[str]]:
    """`normalize` of every title and summary (the lists are consumed): the
    one normal form the search index and the topic corpus both start from,
    worked out once per load (a worker process each does half)."""
    normalize_bulk(titles)
    normalize_bulk(summaries)
    return titles, summaries


def is_cjk_char(cp: int) -> bool:
    """True when the code point is a CJK ideograph."""
    return any(lo <= cp <= hi for lo, hi in CJK_RANGES)


def has_cjk(text: str) -> bool:
    """True when the text holds at least one CJK ideograph."""
    return _CJK_RUN.search(text) is not None


def is_cjk_run(token: str) -> bool:
    """True when a token from `tokens()` is a CJK run (not a Latin word)."""
    return _CJK_RUN.fullmatch(token) is not None


def tokens(normalized: str) -> list[str]:
    """Split normalised text into CJK runs and Latin words.

    Script boundaries split too (`moe路由` -> `moe`, `路由`), and so does any
    punctuation, full-width or not (`数据混合，去重` -> two runs).
    """
    return _TOKEN.findall(normalized)


def line_tokens(normalized_lines: str) -> list[str]:
    """`tokens` of several normalised texts joined by newlines (one regex
    call for all), each newline kept as a "\\n" token between theirs."""
    return _TOKEN_OR_BREAK.findall(normalized_lines)


def latin_words(normalized: str) -> list[str]:
    """The Latin/digit words of normalised text, in order."""
    return _LATIN_WORD.findall(normalized)


@lru_cache(maxsize=65536)
def fold_word(word: str) -> str:
    """A light stem for a normalised Latin word, so inflections meet.

    models -> model, optimisation -> optimization, studies -> study. Kept
    deliberately conservative: acronyms and short words are left alone.
    """
    if len(word) <= 3 or word.isdigit():
        return word
    # Every spelling pattern holds "is", "ys" or "our", and none makes one of
    # them: most words skip the five regexes.
    if "is" in word or "ys" in word or "our" in word:
        for pattern, repl in _SPELLING:
            word = pattern.sub(repl, word)
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
