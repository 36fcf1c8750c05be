"""Reading a search query: length limits, bad queries, venue/year filters,
cross-language expansion.

Pure: the caller passes the venues that are loaded and the alias table, so
`NeurIPS 2023 QLoRA` becomes the term `qlora` with venue and year filters.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from paperbot.core.search._aliases import alias_spans
from paperbot.core.search._cut import COMMON_CHAR, MIN_PIECE_DF, Piece, WordCount, cut_run
from paperbot.core.search._dictionary import dictionary_translation, english_translation
from paperbot.core.search._filters import canonical_venue, split_filters
from paperbot.core.search._weights import (
    ALTERNATIVE,
    BOUND_FACTOR,
    CHAR_FACTOR,
    LONG_QUERY_ALTERNATIVE,
    LONG_QUERY_TERMS,
    LONG_QUERY_TRANSLATION,
    TRANSLATION,
)
from paperbot.core.search._words import (
    CJK_PARTICLES,
    CJK_QUESTION_WORDS,
    STOP_WORDS,
    bound_finals,
    is_particle_run,
    is_question_word,
)
from paperbot.core.text import fold_word, has_cjk, is_cjk_run, normalize, strip_invisible, tokens

# Aliases tried per term: the first ones (canonical names come first) say
# the most, and each costs a pass over the index.
MAX_ALTERNATIVES = 4
# A concept's terms in the query's own language tried after those (a
# concept's synonyms: 损失尖峰 -> 失稳). 1, 2, 3 or 6 rank the judged queries
# alike (docs/lexicon.md); each costs another pass over the index.
MAX_SYNONYMS = 1


class QueryProblem(Enum):
    """Why a query cannot be searched; each gets its own clear answer."""

    EMPTY = "empty"
    TOO_LONG = "too_long"
    NO_TERMS = "no_terms"
    # Words, but only ones every paper says (the, of, 的): nothing to rank by.
    ONLY_COMMON_WORDS = "only_common_words"
    # Letters of a script the index does not hold (Hebrew, Arabic, Cyrillic...).
    UNSUPPORTED_SCRIPT = "unsupported_script"
    # A venue option naming no loaded venue: say so rather than find nothing.
    UNKNOWN_VENUE = "unknown_venue"
    # The same for a year option (decided at rank time: it needs the index).
    UNKNOWN_YEAR = "unknown_year"


@dataclass(frozen=True, slots=True)
class Term:
    """One part of a query: a Latin word, a CJK run, or a matched alias.

    `alternatives` are other names of the same topic (other language,
    acronym); a paper matching one of them matches the term, a bit weaker.
    """

    text: str
    alternatives: tuple[str, ...] = ()
    # What an alias match counts, at most, of a direct one: lower in long
    # queries, whose own words already say more than one alias adds.
    alt_weight: float = ALTERNATIVE
    # The alternatives that translate the term (a bilingual concept's other
    # language, 零阶优化 for zeroth-order): they name the same idea, where a
    # topic's other aliases name a broader one, so they count more.
    translations: frozenset[str] = frozenset()
    translation_weight: float = TRANSLATION
    # Scales the term's weight in the query: a lone character the cut left
    # over (思维 + 树) is kept, but says less than a word (`CHAR_FACTOR`).
    weight_factor: float = 1.0
    # A term the vocabulary names (an alias or concept term) is spelled
    # right, so never matched as a typo of a near word: "optimizer" is no
    # misspelt "optimized", though general English lists neither.
    typos: bool = True

    def weight_of(self, alternative: str) -> float:
        """What a match of this alternative counts, at most, of a direct one."""
        if alternative in self.translations:
            return self.translation_weight
        return self.alt_weight


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    raw: str
    terms: tuple[Term, ...] = ()
    venue: str | None = None
    year: int | None = None
    problem: QueryProblem | None = None
    phrase: str = ""  # every query word in order, stop words included

    @property
    def text(self) -> str:
        """The searchable terms as one normalised string."""
        return " ".join(t.text for t in self.terms)

    @property
    def is_filter_only(self) -> bool:
        """No words left, but a venue/year: list what the filter selects."""
        return not self.terms and (self.venue is not None or self.year is not None)


def parse_query(
    raw: str,
    *,
    venues: Collection[str] = (),
    venue: str | None = None,
    year: int | None = None,
    max_length: int = 300,
    expansions: Mapping[str, Sequence[str]] | None = None,
    translations: Mapping[str, Collection[str]] | None = None,
    word_count: WordCount | None = None,
    synonyms: Mapping[str, Sequence[str]] | None = None,
) -> ParsedQuery:
    """Normalise a query, pull venue/year filters out of it, classify bad input.

    Explicit `venue`/`year` options win over ones written in the query; a
    venue is recognised only when it is one of the loaded `venues` (any case),
    and an explicit one that is not is `UNKNOWN_VENUE`.
    `word_count` (a summary document frequency, `corpus_word_counts`) lets
    Chinese runs be cut into the corpus's words as well as aliases.
    """
    visible = strip_invisible(raw).strip()
    venue = canonical_venue(venue, venues) if venue else None
    if venue and venues and venue not in venues:
        return ParsedQuery(raw, venue=venue, year=year, problem=QueryProblem.UNKNOWN_VENUE)
    if len(visible) > max_length:
        return ParsedQuery(raw, venue=venue, year=year, problem=QueryProblem.TOO_LONG)
    normalized = normalize(visible)
    if not normalized:
        if venue or year:
            return ParsedQuery(raw, venue=venue, year=year)
        return ParsedQuery(raw, venue=venue, year=year, problem=QueryProblem.EMPTY)
    words, venue, year = split_filters(normalized, venues, venue, year)
    terms = _content_terms(
        expand_terms(
            _without_cjk_questions(words),
            expansions or {},
            translations or {},
            word_count,
            synonyms=synonyms or {},
        )
    )
    terms = _bound_finals_weighed(terms, bound_finals(normalized))
    if len(terms) >= LONG_QUERY_TERMS:
        terms = tuple(
            replace(t, alt_weight=LONG_QUERY_ALTERNATIVE, translation_weight=LONG_QUERY_TRANSLATION)
            for t in terms
        )
    if not terms and not (venue or year):
        return ParsedQuery(raw, problem=_why_no_terms(normalized))
    return ParsedQuery(raw, terms=terms, venue=venue, year=year, phrase=" ".join(words))


def _bound_finals_weighed(terms: tuple[Term, ...], bound: frozenset[str]) -> tuple[Term, ...]:
    """The query's bound compound finals (`aware` of `quantization-aware`)
    at `BOUND_FACTOR` of their weight: the compound's idea is its first word."""
    if not bound:
        return terms
    return tuple(
        replace(t, weight_factor=t.weight_factor * BOUND_FACTOR) if t.text in bound else t
        for t in terms
    )


def _without_cjk_questions(words: Sequence[str]) -> list[str]:
    """CJK runs with their question words cut out (`为什么训练不稳定` ->
    `训练不稳定`); a run that is nothing but a question word stays."""
    out: list[str] = []
    for word in words:
        pieces = [word]
        if is_cjk_run(word):
            for asked in CJK_QUESTION_WORDS:
                pieces = [p for piece in pieces for p in piece.split(asked) if p]
        out.extend(pieces or [word])
    return out


def _content_terms(terms: Sequence[Term]) -> tuple[Term, ...]:
    """The terms without noise and question words; the question words stay
    when nothing else would (`what` alone is still a search)."""
    # A word with aliases is filtered like any other: a translation makes a
    # stop or question word no more a topic (`can` <-> 能够 would lift every
    # paper saying 能够).
    real = [t if t.alternatives else _without_cjk_particles(t) for t in terms]
    real = [t for t in real if not _is_noise(t.text)]
    content = [t for t in real if not is_question_word(t.text)]
    return tuple(content or real)


def _without_cjk_particles(term: Term) -> Term:
    """A CJK piece left between aliases without the particles at its edges
    (`中去除` -> `去除`): cutting at an alias leaves them stuck to a word and
    makes a rare, meaningless string that outweighs the real words. A piece
    of one or two characters stays as it is (中文)."""
    text = term.text
    if not is_cjk_run(text) or len(text) < 3:
        return term
    stripped = text.strip(CJK_PARTICLES)
    return replace(term, text=stripped) if len(stripped) >= 2 else term


def _why_no_terms(normalized: str) -> QueryProblem:
    """Only symbols, letters of a script the index does not hold, or words
    too common to search by?"""
    leftover = normalized
    words = set(tokens(normalized))
    for token in words:
        leftover = leftover.replace(token, " ")
    if any(ch.isalpha() for ch in leftover):
        return QueryProblem.UNSUPPORTED_SCRIPT
    if any(ch.isalpha() for word in words for ch in word):
        return QueryProblem.ONLY_COMMON_WORDS
    return QueryProblem.NO_TERMS


def _is_noise(token: str) -> bool:
    """A word that finds nothing useful alone: an English stop word, a
    single Latin letter/digit (`" OR 1=1 --` has no real term), or Chinese
    grammar characters only (的 is in every summary)."""
    return token in STOP_WORDS or (len(token) == 1 and token.isascii()) or is_particle_run(token)


def expand_terms(
    words: Sequence[str],
    expansions: Mapping[str, Sequence[str]],
    translations: Mapping[str, Collection[str]] | None = None,
    word_count: WordCount | None = None,
    *,
    synonyms: Mapping[str, Sequence[str]] | None = None,
) -> tuple[Term, ...]:
    """Group query tokens into terms, attaching aliases where a span matches one.

    An alias of several words (`mixture of experts`) must match consecutive
    query words, in any inflection the index folds together ("learning
    rates" says the alias "learning rate"); a Chinese run is cut into
    aliases and, given `word_count` (a summary document frequency), the
    words the corpus uses (`混合专家模型` -> `混合专家` + `模型`; `_cut`).
    Longest aliases win. An alias's alternatives are its aliases in the
    other script (translations first), then up to `MAX_SYNONYMS` of its
    `synonyms` (`concept_synonyms`: the same concept in its own script).
    """
    if not expansions and word_count is None:
        return tuple(Term(w) for w in words)
    spans = alias_spans(expansions)
    pieces, chars = _split_cjk_runs(list(words), spans.cjk_singles, word_count)
    folded = [fold_word(piece) for piece in pieces]
    terms: list[Term] = []
    i = 0
    while i < len(pieces):
        for toks, key in spans.by_first.get(folded[i], ()):
            if tuple(folded[i : i + len(toks)]) == toks:
                exact = (translations or {}).get(key, frozenset())
                others = _cross_script(key, expansions[key], exact)
                same = [y for y in (synonyms or {}).get(key, ()) if y not in others]
                others = (*others, *same[:MAX_SYNONYMS])
                translated = frozenset(exact) & set(others)
                terms.append(Term(key, others, translations=translated, typos=False))
                i += len(toks)
                break
        else:
            term = _with_dictionary(pieces[i], word_count)
            terms.append(replace(term, weight_factor=CHAR_FACTOR) if i in chars else term)
            i += 1
    return tuple(terms)


def _with_dictionary(word: str, word_count: WordCount | None) -> Term:
    """A word no alias names, with its dictionary translation when the
    corpus is known (`_dictionary`): counted as an alias, not a concept's
    translation."""
    if word_count is None:
        return Term(word)
    if is_cjk_run(word):
        found = english_translation(word, word_count)
    else:
        found = dictionary_translation(word, word_count)
    return Term(word, (found,)) if found else Term(word)


def _cross_script(key: str, aliases: Sequence[str], first: Collection[str] = ()) -> tuple[str, ...]:
    """Only aliases in the other script: the point is 混合专家 <-> mixture of
    experts; same-language aliases of a broad topic would drift off the query.
    The `first` ones (translations) go first, so the cap never drops them."""
    key_cjk = has_cjk(key)
    others = [a for a in aliases if a and a != key and has_cjk(a) != key_cjk]
    others.sort(key=lambda a: a not in first)  # stable: file order otherwise
    return tuple(others[:MAX_ALTERNATIVES])


def _split_cjk_runs(
    words: list[str], cjk_aliases: Collection[str], count: WordCount | None
) -> tuple[list[str], set[int]]:
    """CJK runs cut into aliases and corpus words (`_cut.cut_run`), and the
    positions of the lone characters the cut left over and kept. With
    corpus counts, a leftover character is dropped when it is grammar (用,
    的: common characters) and kept when the summaries use it as
    a rare one or translates it (树 of 思维树: `is_rare_char`), unless the
    run holds no known word at all."""
    out: list[str] = []
    chars: set[int] = set()
    for word in words:
        if not is_cjk_run(word) or len(word) < 2:
            out.append(word)
            continue
        pieces = cut_run(word, cjk_aliases, count)
        if not any(p.known for p in pieces):
            out.append(word)
            continue
        for text, lone in _joined_leftovers(pieces, count):
            if lone:
                chars.add(len(out))
            out.append(text)
    return out, chars


def _joined_leftovers(pieces: Sequence[Piece], count: WordCount | None) -> list[tuple[str, bool]]:
    """The pieces' texts, consecutive uncovered characters joined into one
    piece (大 + 会出现 stay as they were left between aliases), each with
    whether it is a lone leftover character; with corpus counts, one that
    is no rare character (`is_rare_char`) is dropped."""
    out: list[tuple[str, bool]] = []
    leftover = ""
    for piece in [*pieces, Piece("")]:
        if not piece.known:
            leftover += piece.text
            continue
        if len(leftover) == 1 and count is not None:
            if is_rare_char(leftover, count):
                out.append((leftover, True))
        elif leftover:
            out.append((leftover, False))
        leftover = ""
        if piece.text:
            out.append((piece.text, False))
    return out


def is_rare_char(char: str, count: WordCount) -> bool:
    """A lone character worth a term: no particle, not common in the
    summaries (`COMMON_CHAR`), and either held by some of them or
    translated by the dictionary into a word the papers use (树 -> tree)."""
    if char in CJK_PARTICLES:
        return False
    df = count(char)
    if df >= COMMON_CHAR:
        return False
    return df >= MIN_PIECE_DF or english_translation(char, count) is not None
