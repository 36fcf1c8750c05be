"""A general English -> Chinese dictionary for query words the concept
tables do not translate (`data/english_chinese.tsv`, made by
`scripts/english_chinese.py` from CC-CEDICT).

The summaries are Chinese: an English question or paraphrase that shares
no word with a title (`a thousand carefully curated examples ...`) can
only meet its paper in the summary, through a translation of its everyday
words. The concept tables translate the field's terms; this translates
the rest, one Chinese word per English word: the first sense the
dictionary gives that the summaries use (in `MIN_PIECE_DF` of them), the
commonest of those. It counts as an alias (`ALTERNATIVE`), below a
concept's translation. The other way, a Chinese query word no alias names
gets the English word of its first sense that the papers use (思维 ->
thought, for `Tree of Thoughts`), a lone character too (树 -> tree: the
dictionary keeps a character's first sense only).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path

from paperbot.core.search._cut import MIN_PIECE_DF, WordCount
from paperbot.core.search._words import GENERIC_WORDS, STOP_WORDS, is_question_word
from paperbot.core.text import fold_word

_DICTIONARY_FILE = Path(__file__).resolve().parent.parent.parent / "data" / "english_chinese.tsv"
# Shorter words are mostly abbreviations or grammar.
MIN_WORD = 3


@cache
def _table() -> dict[str, tuple[tuple[int, str], ...]]:
    """Folded English word -> (gloss position, Chinese word) pairs, first sense first."""
    table: dict[str, list[tuple[int, str]]] = {}
    # Shipped package data read once: the same bytes every run, no state.
    for line in _DICTIONARY_FILE.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        word, _, pairs = line.partition("\t")
        into = table.setdefault(fold_word(word), [])
        for pair in pairs.split():
            position, _, chinese = pair.partition(":")
            into.append((int(position), chinese))
    return {word: tuple(sorted(pairs)) for word, pairs in table.items()}


@cache
def _inverse() -> dict[str, tuple[tuple[int, str], ...]]:
    """Chinese word -> (gloss position, English word) pairs, first sense first."""
    inverse: dict[str, list[tuple[int, str]]] = {}
    for english, pairs in _table().items():
        for position, chinese in pairs:
            inverse.setdefault(chinese, []).append((position, english))
    return {chinese: tuple(sorted(pairs)) for chinese, pairs in inverse.items()}


def load_dictionary() -> int:
    """Read the dictionary now (both directions, ~0.4 s) rather than in the
    first query that needs it; the number of English words."""
    _inverse()
    return len(_table())


def is_dictionary_word(word: str) -> bool:
    """Whether the dictionary has the English word (or its folded form)."""
    return fold_word(word) in _table()


def _forms(word: str) -> list[str]:
    """The word and the stems an inflection may stand for (trained ->
    train, curated -> curate, backtracking -> backtrack)."""
    forms = [word]
    if word.endswith("ed"):
        forms += [word[:-2], word[:-1]]
    if word.endswith("ing"):
        forms += [word[:-3], word[:-3] + "e"]
    return forms


def dictionary_translation(word: str, count: WordCount) -> str | None:
    """The Chinese word translating an English query word, or None (a
    grammar or generic word, a word the dictionary lacks, or one whose
    translations no two summaries say)."""
    if (
        len(word) < MIN_WORD
        or not word.isascii()
        or not word.isalpha()
        or word in STOP_WORDS
        or word in GENERIC_WORDS
        or is_question_word(word)
    ):
        return None
    table = _table()
    for form in _forms(word):
        # Never one character: 树 is also a piece of 决策树 (decision tree).
        words = [pair for pair in table.get(fold_word(form), ()) if len(pair[1]) > 1]
        found = _most_used(words, count)
        if found is not None:
            return found
    return None


def english_translation(word: str, count: WordCount) -> str | None:
    """The English word translating a Chinese query word (思维 -> thought),
    or None: the first sense the papers use (in `MIN_PIECE_DF` of them,
    title or summary; one, for a character), the commonest of those, never
    a grammar word."""
    if word in GENERIC_WORDS or is_question_word(word):
        return None
    pairs = [
        (position, english)
        for position, english in _inverse().get(word, ())
        if english not in STOP_WORDS
        and english not in GENERIC_WORDS
        and not is_question_word(english)
    ]
    # A character has its first sense only (`scripts/english_chinese.py`):
    # no sense to choose, so one paper saying it is enough.
    return _most_used(pairs, count, 1 if len(word) == 1 else MIN_PIECE_DF)


def _most_used(
    pairs: Iterable[tuple[int, str]], count: WordCount, least: int = MIN_PIECE_DF
) -> str | None:
    """Of (gloss position, word) pairs, the first sense the corpus uses (in
    `least` papers), the commonest of those."""
    counted = [(position, -count(word), word) for position, word in pairs]
    used = [item for item in counted if -item[1] >= least]
    return min(used)[2] if used else None
