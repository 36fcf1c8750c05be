"""Keys: the one matching form every topic term and every paper field is reduced to.

`core.text.normalize` (NFKC, case-folded, traditional -> simplified), split
into tokens (CJK runs and Latin words), Latin words light-stemmed with
`fold_word`, joined by single spaces. In that form a Latin alias is a whole
word sequence (`" rl "` is never found inside `" url "`), inflections meet
(`scaling laws` finds `scaling law`), and a Chinese alias is a plain
substring (Chinese has no spaces between words).
"""

from __future__ import annotations

from paperbot.core.text import (
    fold_word,
    is_cjk_run,
    latin_words,
    line_tokens,
    normalize,
    normalize_bulk,
    tokens,
)

LATIN_LAST = "\u024f"
"""The last Latin word character of `core.text.tokens`: Latin word characters
all sit at or below it and CJK ones far above it (U+3400 on), so a token's
first character tells a Latin word from a CJK run."""


def term_key(text: str) -> str:
    """The matching form of any text: normalised tokens, Latin words folded."""
    return normal_term_key(normalize(text))


def normal_term_key(normal: str) -> str:
    """`term_key` of a text already in `core.text.normalize`'s form."""
    # `is_cjk_token` inlined: this runs for every word of every paper.
    return " ".join([t if t[0] > LATIN_LAST else fold_word(t) for t in tokens(normal)])


def is_cjk_token(token: str) -> bool:
    """For tokens of `core.text.tokens` (and their folds): a CJK run, not a Latin word.

    The first character decides (see `LATIN_LAST`); much cheaper than a regex per token.
    """
    return token[0] > LATIN_LAST


def needle(key: str) -> str:
    """What to look for in a padded document key: Latin ends must be word ends."""
    lead = "" if is_cjk_run(key[0]) else " "
    trail = "" if is_cjk_run(key[-1]) else " "
    return f"{lead}{key}{trail}"


def document(text: str, normal: bool = False) -> str:
    """A field's key padded with spaces so every Latin word has spaces around
    it (`normal`: the text is in `core.text.normalize`'s form already)."""
    return f" {normal_term_key(text) if normal else term_key(text)} "


class Documents:
    """`document` of many texts a batch at a time, the same strings: each
    distinct Latin word is folded once (a batch's words found by one regex
    call), then a token costs a dict lookup, not a Python call."""

    def __init__(self) -> None:
        self._folds: dict[str, str] = {}
        """Latin words whose fold differs from them."""
        self._seen: set[str] = set()
        self.latin: set[str] = set()
        """Every folded Latin word of the keys made so far."""

    def of(self, texts: list[str], normal: bool = False) -> list[str]:
        """`document(text, normal)` of each text."""
        if not normal:
            texts = list(texts)
            normalize_bulk(texts)
        lines = "\n".join(texts)
        if lines.count("\n") != len(texts) - 1:  # not in normal form: one at a time
            return [document(text, True) for text in texts]
        # No word character is a newline: the joined text has the same words.
        new = set(latin_words(lines)).difference(self._seen)
        for word in new:
            folded = fold_word(word)
            if folded != word:
                self._folds[word] = folded
            self.latin.add(folded)
        self._seen |= new
        found = line_tokens(lines)
        del lines
        # " a b \n c " splits into " a b " and " c ": each text's padded key;
        # a text without tokens comes out as " " where its key is "  ".
        keys = f" {' '.join(map(self._folds.get, found, found))} ".split("\n")
        return [key if key != " " else "  " for key in keys]
