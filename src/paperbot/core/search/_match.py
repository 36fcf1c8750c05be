"""Stage 2's per-field matching: one term against a prepared title or
summary (exact word or phrase, substring, rapidfuzz typo, CJK bigrams)."""

from __future__ import annotations

import itertools
from functools import lru_cache

from rapidfuzz import fuzz, process

from paperbot.core.search._weights import (
    EXACT,
    FUZZY,
    PARTIAL_CJK,
    PHRASE_PARTS,
    PIECE_SHARE,
    SUBSTRING,
    SUMMARY_FACTOR,
)
from paperbot.core.text import fold_word, is_cjk_char, is_cjk_run, latin_words, normalize, tokens


class FieldText:
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
    def of(cls, text: str) -> FieldText:
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


# The same few query strings are looked at for every candidate: cache them.
@lru_cache(maxsize=4096)
def term_parts(text: str) -> tuple[str, ...]:
    return tuple(tokens(text))


@lru_cache(maxsize=4096)
def normalized_alias(text: str) -> str:
    return normalize(text)


def term_match(text: str, fields: tuple[FieldText, FieldText]) -> tuple[float, list[str]]:
    """Best match of one term in title or summary (summary x 0.7).

    A term of several tokens (an alias like `mixture of experts`) scores 1
    as a phrase, else 0.95 x the mean of its tokens' matches.
    """
    parts = term_parts(text)
    if len(parts) > 1:
        best, hits = phrase_match(text, fields)
        if best < EXACT:
            matches = [term_match(part, fields) for part in parts]
            mean = sum(m for m, _ in matches) / len(matches)
            if PHRASE_PARTS * mean > best:
                best = PHRASE_PARTS * mean
                hits = [h for _, found in matches for h in found]
        return best, hits
    best = 0.0
    hits = []
    for field, factor in zip(fields, (1.0, SUMMARY_FACTOR), strict=True):
        strength, found = (
            _cjk_match(text, field) if is_cjk_char(ord(text[0])) else _latin_match(text, field)
        )
        if strength * factor > best:
            best = strength * factor
        hits.extend(found)
    return best, hits


def phrase_match(alias: str, fields: tuple[FieldText, FieldText]) -> tuple[float, list[str]]:
    """An alias (maybe several words) matches when it occurs verbatim."""
    best = 0.0
    hits: list[str] = []
    for field, factor in zip(fields, (1.0, SUMMARY_FACTOR), strict=True):
        if alias and _contains_phrase(field, alias):
            best = max(best, factor)
            hits.append(alias)
    return best, hits


def _contains_phrase(field: FieldText, alias: str) -> bool:
    """Whole-word containment for Latin aliases (RL never matches URL),
    plain containment for anything with CJK."""
    parts = term_parts(alias)
    if not parts:
        return False
    if any(is_cjk_run(p) for p in parts):
        return alias in field.text
    if len(parts) == 1:
        return fold_word(parts[0]) in field.folded
    return f" {' '.join(parts)} " in f" {' '.join(field.words)} "


def latin_near(word: str, field: FieldText) -> float:
    """`_latin_match`'s strength when the word is known not to occur exactly."""
    if len(word) < 4 or not field.words:
        return 0.0
    if field.has_piece(word):
        return _piece_strength(word, field)
    cutoff = 80 if len(word) >= 5 else 86
    best = process.extractOne(word, field.words, scorer=fuzz.ratio, score_cutoff=cutoff)
    return FUZZY * best[1] / 100 if best is not None else 0.0


def _piece_strength(word: str, field: FieldText) -> float:
    """A piece that is most of the word holding it (`lora` in QLoRA,
    `training` in pretraining) is nearly the word; one that is a small part
    of it (`able` in variable, `back` in backward) is weak evidence, scaled
    by its share, so it never outranks an exact rare word elsewhere."""
    hosts = [w for w in field.words if word in w]
    if not hosts:
        return SUBSTRING  # spans words: `scissorhands` in "scissor hands"
    share = max(len(word) / len(host) for host in hosts)
    return SUBSTRING if share >= PIECE_SHARE else SUBSTRING * share


def _latin_match(word: str, field: FieldText) -> tuple[float, list[str]]:
    folded = fold_word(word)
    if folded in field.folded:
        return EXACT, [field.folded[folded]]
    if len(word) >= 4 and field.has_piece(word):
        # Highlight the whole word holding the piece (QLoRA for `lora`).
        return _piece_strength(word, field), [w for w in field.words if word in w][:1] or [word]
    if len(word) >= 4 and field.words:
        cutoff = 80 if len(word) >= 5 else 86
        best = process.extractOne(word, field.words, scorer=fuzz.ratio, score_cutoff=cutoff)
        if best is not None:
            return FUZZY * best[1] / 100, [best[0]]
    return 0.0, []


def _cjk_match(run: str, field: FieldText) -> tuple[float, list[str]]:
    if run in field.text:
        return EXACT, [run]
    if len(run) < 2:
        return 0.0, []
    present = [run[i : i + 2] in field.text for i in range(len(run) - 1)]
    if not any(present):
        return 0.0, []
    return PARTIAL_CJK * sum(present) / len(present), _covered_spans(run, present, field.text)


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
