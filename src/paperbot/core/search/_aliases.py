"""The alias table queries are read with: topic aliases and bilingual
concepts as one mapping (`bilingual_table`), the concepts' translations
(`concept_translations`) and same-language synonyms (`concept_synonyms`),
the three as one value (`QueryTables`), and the table's keys as token
spans to find in a query (`alias_spans`)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from paperbot.core.text import fold_word, is_cjk_run, normalize, tokens

AliasSpan = tuple[tuple[str, ...], str]
"""A key's folded tokens, and the key."""

Concepts = Iterable[tuple[Sequence[str], Sequence[str]]]
"""`[[concept]]` tables as (English terms, Chinese terms) pairs."""


@dataclass(frozen=True, slots=True)
class AliasSpans:
    """A table's keys as token spans to find in a query: by their first
    folded token, longest key first (ties by key), so a query word is
    compared with the few keys starting with it; and the one-token Chinese
    keys, which cut a query's Chinese runs (`_cut`)."""

    by_first: dict[str, list[AliasSpan]]
    cjk_singles: frozenset[str]


_LAST: list[tuple[Mapping[str, Sequence[str]], AliasSpans]] = []
"""The last table's spans, with the table they were made from."""


def alias_spans(expansions: Mapping[str, Sequence[str]]) -> AliasSpans:
    """Every key of the table as its folded tokens (so "learning rates"
    finds "learning rate"). Made once per table rather than once per query
    (about 2 ms over the shipped table's 1,468 keys): the service builds its
    table once and reads every query with it. Kept for the one table last
    asked about, held by reference, so its identity cannot pass to another
    table; tables are not changed once made."""
    for table, spans in _LAST:
        if table is expansions:
            return spans
    ordered = sorted(
        ((tuple(map(fold_word, tokens(key))), key) for key in expansions if tokens(key)),
        key=lambda item: (-len(item[1]), item[1]),
    )
    by_first: dict[str, list[AliasSpan]] = {}
    for span in ordered:
        by_first.setdefault(span[0][0], []).append(span)
    singles = frozenset(key for toks, key in ordered if len(toks) == 1 and is_cjk_run(key))
    spans = AliasSpans(by_first, singles)
    _LAST[:] = [(expansions, spans)]
    return spans


def bilingual_table(
    expansions: Mapping[str, Sequence[str]], concepts: Concepts
) -> dict[str, tuple[str, ...]]:
    """The topic alias table with the bilingual concepts ((English terms,
    Chinese terms) pairs) added: every concept term gains the other
    language's terms as aliases, after any topic aliases it has.

    One-character Chinese terms are no keys: they would cut unrelated
    Chinese queries apart (秩 in 秩序).
    """
    table = {key: tuple(values) for key, values in expansions.items()}
    for key, others in _concept_pairs(concepts):
        if is_cjk_run(key) and len(key) < 2:
            continue
        merged = (*table.get(key, ()), *others)
        table[key] = tuple(dict.fromkeys(o for o in merged if o != key))
    return table


def concept_translations(concepts: Concepts) -> dict[str, frozenset[str]]:
    """Per normalised concept term, its translations: the same concept's
    terms in the other language (the keys `bilingual_table` adds them under)."""
    found: dict[str, set[str]] = {}
    for key, others in _concept_pairs(concepts):
        found.setdefault(key, set()).update(o for o in others if o != key)
    return {key: frozenset(others) for key, others in found.items()}


def concept_synonyms(concepts: Concepts) -> dict[str, tuple[str, ...]]:
    """Per normalised concept term, the same concepts' other terms in its own
    language, in file order (损失尖峰: 失稳, 训练不稳定 ...): one idea said
    another way, as a summary may say it where the query does not."""
    found: dict[str, dict[str, None]] = {}
    for en, zh in _normalised(concepts):
        for same in (en, zh):
            for key in same:
                found.setdefault(key, {}).update(dict.fromkeys(t for t in same if t != key))
    return {key: tuple(others) for key, others in found.items() if others}


def _concept_pairs(concepts: Concepts) -> Iterator[tuple[str, list[str]]]:
    """Each concept term, normalised, with the same concept's terms in the
    other language (normalised; empty ones dropped), in file order."""
    for en, zh in _normalised(concepts):
        for keys, others in ((en, zh), (zh, en)):
            for key in keys:
                yield key, others


def _normalised(concepts: Concepts) -> Iterator[tuple[list[str], list[str]]]:
    """Each concept's English and Chinese terms, normalised, empty ones dropped."""
    for english, chinese in concepts:
        yield [t for t in map(normalize, english) if t], [t for t in map(normalize, chinese) if t]


@dataclass(frozen=True, slots=True)
class QueryTables:
    """What the vocabulary gives every query (`parse_query`'s tables): the
    alias table, the concepts' translations (they count more) and their
    same-language synonyms. Empty: a query is read by its words alone."""

    expansions: Mapping[str, Sequence[str]] = field(default_factory=dict)
    translations: Mapping[str, Collection[str]] = field(default_factory=dict)
    synonyms: Mapping[str, Sequence[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, expansions: Mapping[str, Sequence[str]], concepts: Concepts) -> QueryTables:
        """The tables of a vocabulary's topic aliases and concepts."""
        pairs = list(concepts)
        return cls(
            bilingual_table(expansions, pairs), concept_translations(pairs), concept_synonyms(pairs)
        )
