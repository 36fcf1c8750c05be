"""Stage 2's per-field matching: one term against a prepared title or
summary (exact word or phrase, substring, rapidfuzz typo, CJK bigrams)."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from functools import lru_cache

from rapidfuzz import fuzz, process

from paperbot.core.search._dictionary import is_dictionary_word
from paperbot.core.search._general import zipf_frequency
from paperbot.core.search._weights import (
    EXACT,
    FUZZY,
    PARTIAL_CJK,
    PHRASE_PARTS,
    PIECE_SHARE,
    SUBSTRING,
    SUMMARY_FACTOR,
    TITLE_FACTOR,
)
from paperbot.core.text import fold_word, is_cjk_char, is_cjk_run, latin_words, normalize, tokens

FIELD_FACTORS = (TITLE_FACTOR, SUMMARY_FACTOR)
"""What a match counts in a (title, summary) pair's each field."""


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


def term_match(
    text: str, fields: tuple[FieldText, FieldText], typos: bool = True
) -> tuple[float, list[str]]:
    """Best match of one term in title or summary (summary x 0.7).

    A term of several tokens (an alias like `mixture of experts`) scores 1
    as a phrase, else 0.95 x the mean of its tokens' matches. `typos`:
    whether a near word may count (not for a term the vocabulary names).
    """
    parts = term_parts(text)
    if len(parts) > 1:
        best, hits = phrase_match(text, fields)
        if best < EXACT:
            matches = [term_match(part, fields, typos) for part in parts]
            mean = sum(m for m, _ in matches) / len(matches)
            if PHRASE_PARTS * mean > best:
                best = PHRASE_PARTS * mean
                hits = [h for _, found in matches for h in found]
        return best, hits
    best = 0.0
    hits = []
    for field, factor in zip(fields, FIELD_FACTORS, strict=True):
        strength, found = (
            _cjk_match(text, field)
            if is_cjk_char(ord(text[0]))
            else _latin_match(text, field, typos)
        )
        if strength * factor > best:
            best = strength * factor
        hits.extend(found)
    return best, hits


def phrase_match(alias: str, fields: tuple[FieldText, FieldText]) -> tuple[float, list[str]]:
    """An alias (maybe several words) matches when it occurs verbatim."""
    best = 0.0
    hits: list[str] = []
    for field, factor in zip(fields, FIELD_FACTORS, strict=True):
        if alias and contains_phrase(field, alias):
            best = max(best, factor)
            hits.append(alias)
    return best, hits


def contains_phrase(field: FieldText, alias: str) -> bool:
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


def latin_near(word: str, field: FieldText, typos: bool = True) -> float:
    """`_latin_match`'s strength when the word is known not to occur exactly."""
    if len(word) < 4 or not field.words:
        return 0.0
    if field.has_piece(word):
        return _piece_strength(word, field)
    if not (typos and may_be_misspelt(word)):
        return 0.0
    best = process.extractOne(word, field.words, scorer=fuzz.ratio, score_cutoff=_typo_cutoff(word))
    return FUZZY * best[1] / 100 if best is not None else 0.0


@lru_cache(maxsize=4096)
def may_be_misspelt(word: str) -> bool:
    """Whether a query word is matched to the near words of a text (a typo
    match): not when it is an English word spelled right, which general
    English or the dictionary has (`reference` is no misspelt "preference",
    `transition` no "translation"); jargon and typos are (`shampo`)."""
    return zipf_frequency(word) is None and not is_dictionary_word(word)


def _typo_cutoff(word: str) -> int:
    return 80 if len(word) >= 5 else 86


class FieldSet:
    """Many candidates' same field, for `NearWords`: their distinct Latin
    words and their run-together words in one string, each worked out once
    per query instead of once per query word and candidate."""

    __slots__ = ("_joined", "_starts", "_text", "_text_starts", "_vocabulary", "fields")

    def __init__(self, fields: Sequence[FieldText]) -> None:
        self.fields = fields
        self._vocabulary: list[str] | None = None
        self._joined = ""
        self._starts: list[int] = []
        self._text = ""
        self._text_starts: list[int] = []

    @property
    def vocabulary(self) -> list[str]:
        if self._vocabulary is None:
            words = itertools.chain.from_iterable(f.words for f in self.fields)
            self._vocabulary = list(dict.fromkeys(words))
        return self._vocabulary

    def holding(self, piece: str) -> set[int]:
        """Which fields' run-together words contain `piece` anywhere (a
        superset of those where `FieldText.has_piece` is true)."""
        if not self._starts:
            compacts = ["".join(f.words) for f in self.fields]
            self._joined = "\n".join(compacts)  # never in a word: no match spans two fields
            self._starts = list(itertools.accumulate((len(c) + 1 for c in compacts), initial=0))
        return _occurrences(self._joined, self._starts, piece)

    def containing(self, text: str) -> set[int]:
        """Which fields' text contains `text` (`text in field.text`)."""
        if not self._text_starts:
            texts = [f.text for f in self.fields]
            self._text = "\x00".join(texts)  # never in normalised text
            self._text_starts = list(itertools.accumulate((len(t) + 1 for t in texts), initial=0))
        return _occurrences(self._text, self._text_starts, text)


def _occurrences(joined: str, starts: Sequence[int], piece: str) -> set[int]:
    """The parts of `joined` (beginning at `starts`) where `piece` occurs."""
    found: set[int] = set()
    at = joined.find(piece)
    while at >= 0:
        found.add(bisect.bisect_right(starts, at) - 1)
        at = joined.find(piece, at + 1)
    return found


def cjk_strengths(run: str, titles: FieldSet, summaries: FieldSet) -> list[float]:
    """`term_match(run, ...)`'s strength for a CJK run in every field pair
    of the sets (in order), each substring found in all fields at once."""
    title = _cjk_strengths(run, titles)
    summary = _cjk_strengths(run, summaries)
    out = []
    for t, s in zip(title, summary, strict=True):
        best = t * TITLE_FACTOR
        if s * SUMMARY_FACTOR > best:
            best = s * SUMMARY_FACTOR
        out.append(best)
    return out


def _cjk_strengths(run: str, fields: FieldSet) -> list[float]:
    """`_cjk_match(run, field)`'s strength for every field of the set."""
    out = [0.0] * len(fields.fields)
    exact = fields.containing(run)
    if len(run) >= 2:
        counts = [0] * len(out)
        for i in range(len(run) - 1):
            for at in fields.containing(run[i : i + 2]):
                counts[at] += 1
        for at, count in enumerate(counts):
            if count:
                out[at] = _partial_cjk(count, run)
    for at in exact:
        out[at] = EXACT
    return out


def is_plain_phrase(alias: str) -> bool:
    """Whether `contains_phrase` tests the alias by plain containment (it
    holds CJK), which `FieldSet.containing` answers for many fields at once."""
    return any(is_cjk_run(p) for p in term_parts(alias))


class NearWords:
    """`latin_near` of one word for every field of a `FieldSet`: a long
    query compares each of its words with a hundred candidates' titles and
    summaries, which share most of their words, so each distinct word is
    scored once (`fuzz.ratio` at the same cutoff) and the piece test runs
    only on the fields whose run-together words contain the word."""

    __slots__ = ("_pieces", "_scores", "word")

    def __init__(self, word: str, fields: FieldSet, typos: bool = True) -> None:
        self.word = word
        self._scores: dict[str, float] = {}
        self._pieces: set[int] = set()
        if len(word) >= 4:
            self._pieces = fields.holding(word)
        if typos and len(word) >= 4 and may_be_misspelt(word):
            found = process.extract(
                word,
                fields.vocabulary,
                scorer=fuzz.ratio,
                score_cutoff=_typo_cutoff(word),
                limit=None,
            )
            self._scores = {w: float(score) for w, score, _ in found}

    def strength(self, i: int, field: FieldText) -> float:
        """`latin_near(word, field)` for the i-th field of the set."""
        # Most words of a long query are near no candidate's word (`_scores`
        # empty) and in no field as a piece: answered without reading the field.
        if i in self._pieces and field.has_piece(self.word):
            return _piece_strength(self.word, field)
        if not self._scores:
            return 0.0
        words = field.words
        best = max((s for w, s in self._scores.items() if w in words), default=None)
        return FUZZY * best / 100 if best is not None else 0.0


def _piece_strength(word: str, field: FieldText) -> float:
    """A piece that is most of the word holding it (`lora` in QLoRA,
    `training` in pretraining) is nearly the word; one that is a small part
    of it (`able` in variable, `back` in backward) is weak evidence, scaled
    by its share, so it never outranks an exact rare word elsewhere. An
    English word inside another is no piece of it (`reference` in
    "preference", `able` in "variable"): both are words of their own."""
    hosts = [w for w in field.words if word in w]
    if not hosts:
        return SUBSTRING  # spans words: `scissorhands` in "scissor hands"
    if not may_be_misspelt(word):
        hosts = [host for host in hosts if may_be_misspelt(host)]
        if not hosts:
            return 0.0
    share = max(len(word) / len(host) for host in hosts)
    return SUBSTRING if share >= PIECE_SHARE else SUBSTRING * share


def _latin_match(word: str, field: FieldText, typos: bool = True) -> tuple[float, list[str]]:
    folded = fold_word(word)
    if folded in field.folded:
        return EXACT, [field.folded[folded]]
    if len(word) >= 4 and field.has_piece(word):
        # Highlight the whole word holding the piece (QLoRA for `lora`).
        return _piece_strength(word, field), [w for w in field.words if word in w][:1] or [word]
    if typos and len(word) >= 4 and field.words and may_be_misspelt(word):
        best = process.extractOne(
            word, field.words, scorer=fuzz.ratio, score_cutoff=_typo_cutoff(word)
        )
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
    return _partial_cjk(sum(present), run), _covered_spans(run, present, field.text)


def _partial_cjk(found: int, run: str) -> float:
    """The strength of a CJK run in a field that holds `found` of its
    bigrams but not the run itself."""
    return PARTIAL_CJK * found / (len(run) - 1)


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
