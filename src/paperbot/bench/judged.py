"""The judged relevance data of issue 10: topics and search queries with the
papers a reader means, judged by reading the shipped corpus.

The data ships as package data in paperbot/data/judged/*.toml (see the README
there), so `paperbot bench quality` runs from an installed wheel. Papers are
named by their exact title, so the data survives row-id changes; loading checks
every title against the shipped corpus (parsed here without a database).
"""

from __future__ import annotations

import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from paperbot.config import BUNDLED_CORPUS
from paperbot.core.corpus import decode, merge_entries, parse_text
from paperbot.core.models import Entry

JUDGED_DIR = Path(__file__).parent.parent / "data" / "judged"
TOPICS_FILE = JUDGED_DIR / "topics.toml"
QUERIES_FILE = JUDGED_DIR / "queries.toml"
# Held out (judged before any tuning on the tuned files above): reported apart and
# never used to tune matching, ranking or the vocabulary.
HELD_OUT_TOPICS_FILE = JUDGED_DIR / "heldout_topics.toml"
HELD_OUT_QUERIES_FILE = JUDGED_DIR / "heldout_queries.toml"
# Keywords typed as acronyms, expansions and Chinese aliases (tuned: they
# chose the acronym concepts), reported apart from TOPICS_FILE.
KEYWORD_TOPICS_FILE = JUDGED_DIR / "keyword_topics.toml"
# More keywords as typed, held out from every change made while looking at
# KEYWORD_TOPICS_FILE.
HELD_OUT_KEYWORD_TOPICS_FILE = JUDGED_DIR / "heldout_keywords.toml"
# More vocabulary topics (2026-12-04), each paper judged by reading it for
# topics the files above do not judge: six looked at while changing the bot,
# six held out from every change.
EXTRA_TOPICS_FILE = JUDGED_DIR / "extra_topics.toml"
HELD_OUT_EXTRA_TOPICS_FILE = JUDGED_DIR / "heldout_extra_topics.toml"
# The topics of TOPICS_FILE judged again by a second reader who saw neither
# that judgment nor the bot's output (2026-12-04): how far readers agree.
SECOND_TOPICS_FILE = JUDGED_DIR / "second_topics.toml"
# Questions asking for advice in everyday words ("what's the best way to ...",
# 有没有好办法), written blind (2026-12-04): half tuned, half held out.
ADVICE_QUERIES_FILE = JUDGED_DIR / "advice_queries.toml"
HELD_OUT_ADVICE_QUERIES_FILE = JUDGED_DIR / "heldout_advice_queries.toml"
# Questions typed in everyday spoken Chinese (以后, 会不会, 咋, 靠谱吗), written
# blind (2026-12-05): half tuned, half held out.
COLLOQUIAL_QUERIES_FILE = JUDGED_DIR / "colloquial_queries.toml"
HELD_OUT_COLLOQUIAL_QUERIES_FILE = JUDGED_DIR / "heldout_colloquial_queries.toml"

TOPIC_KINDS = ("vocabulary", "keyword")
QUERY_KINDS = (
    "question_en",
    "question_zh",
    "paraphrase",
    "acronym_in_summary",
    "dataset_name",
    "typo2",
    "mixed",
    "near_duplicate",
    "cross_lingual",
    "compound",
)
MAX_EXPECTED = 3


class JudgedDataError(ValueError):
    """The judged data file is malformed or names a paper the corpus lacks."""


@dataclass(frozen=True, slots=True)
class JudgedPaper:
    title: str
    why: str


@dataclass(frozen=True, slots=True)
class JudgedTopic:
    id: str | None  # a topics.toml (src/paperbot/data) id for vocabulary topics, None for keywords
    query: str
    kind: str
    relevant: tuple[JudgedPaper, ...]

    @property
    def titles(self) -> frozenset[str]:
        return frozenset(p.title for p in self.relevant)


@dataclass(frozen=True, slots=True)
class JudgedQuery:
    query: str
    kind: str
    expected: tuple[str, ...]
    why: str


@cache
def shipped_titles() -> frozenset[str]:
    """Titles of the bundled corpus as the loader stores them (merged by title key)."""
    entries: list[Entry] = []
    for path in sorted(BUNDLED_CORPUS.glob("*.txt")):
        text = decode(path.read_bytes(), path.name)
        if not isinstance(text, str):
            raise JudgedDataError(f"{path.name}: the shipped corpus file does not decode")
        entries.extend(parse_text(text, path.name, "预训练").entries)
    return frozenset(record.title for record in merge_entries(entries))


def load_judged_topics(
    path: Path = TOPICS_FILE, known_titles: Collection[str] | None = None
) -> tuple[JudgedTopic, ...]:
    """The judged topics in `path`; every title must be in `known_titles`
    (default: the shipped corpus)."""
    known = shipped_titles() if known_titles is None else frozenset(known_titles)
    tables = _tables(path, "topic")
    topics = tuple(
        _topic(table, f"{path.name} topic {n}", known) for n, table in enumerate(tables, 1)
    )
    _no_duplicates([t.query for t in topics], f"{path.name}: topic query")
    return topics


def load_judged_queries(
    path: Path = QUERIES_FILE, known_titles: Collection[str] | None = None
) -> tuple[JudgedQuery, ...]:
    """The judged search queries in `path`; every expected title must be in
    `known_titles` (default: the shipped corpus)."""
    known = shipped_titles() if known_titles is None else frozenset(known_titles)
    tables = _tables(path, "query")
    queries = tuple(
        _query(table, f"{path.name} query {n}", known) for n, table in enumerate(tables, 1)
    )
    _no_duplicates([q.query for q in queries], f"{path.name}: query")
    return queries


def _tables(path: Path, name: str) -> list[Mapping[str, Any]]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise JudgedDataError(f"{path}: cannot read: {exc}") from exc
    tables = data.get(name)
    if not isinstance(tables, list) or not tables:
        raise JudgedDataError(f"{path.name}: no [[{name}]] tables")
    return [t for t in tables if isinstance(t, dict)]


def _topic(table: Mapping[str, Any], where: str, known: frozenset[str]) -> JudgedTopic:
    _only_keys(table, {"id", "query", "kind", "relevant"}, where)
    kind = _choice(table, "kind", TOPIC_KINDS, where)
    topic_id = table.get("id")
    if kind == "vocabulary" and not (isinstance(topic_id, str) and topic_id):
        raise JudgedDataError(f"{where}: a vocabulary topic needs an id")
    if kind == "keyword" and topic_id is not None:
        raise JudgedDataError(f"{where}: a keyword topic has no id")
    rows = table.get("relevant")
    if not isinstance(rows, list) or not rows:
        raise JudgedDataError(f"{where}: relevant must be a non-empty list")
    relevant = tuple(_paper(row, f"{where} relevant {n}", known) for n, row in enumerate(rows, 1))
    _no_duplicates([p.title for p in relevant], f"{where}: relevant title")
    return JudgedTopic(topic_id, _text(table, "query", where), kind, relevant)


def _paper(row: object, where: str, known: frozenset[str]) -> JudgedPaper:
    if not isinstance(row, dict):
        raise JudgedDataError(f"{where}: must be a {{title, why}} table")
    _only_keys(row, {"title", "why"}, where)
    return JudgedPaper(_title(_text(row, "title", where), where, known), _text(row, "why", where))


def _query(table: Mapping[str, Any], where: str, known: frozenset[str]) -> JudgedQuery:
    _only_keys(table, {"query", "kind", "expected", "why"}, where)
    expected = table.get("expected")
    if not isinstance(expected, list) or not 1 <= len(expected) <= MAX_EXPECTED:
        raise JudgedDataError(f"{where}: expected must list 1 to {MAX_EXPECTED} titles")
    if not all(isinstance(t, str) for t in expected):
        raise JudgedDataError(f"{where}: expected must list titles as strings")
    _no_duplicates(expected, f"{where}: expected title")
    return JudgedQuery(
        query=_text(table, "query", where),
        kind=_choice(table, "kind", QUERY_KINDS, where),
        expected=tuple(_title(t, where, known) for t in expected),
        why=_text(table, "why", where),
    )


def _title(title: str, where: str, known: frozenset[str]) -> str:
    if title not in known:
        raise JudgedDataError(f"{where}: no shipped paper is titled {title!r}")
    return title


def _text(table: Mapping[str, Any], key: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise JudgedDataError(f"{where}: {key} must be a non-empty string")
    return value


def _choice(table: Mapping[str, Any], key: str, allowed: tuple[str, ...], where: str) -> str:
    value = _text(table, key, where)
    if value not in allowed:
        raise JudgedDataError(f"{where}: {key} {value!r} is not one of {', '.join(allowed)}")
    return value


def _only_keys(table: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise JudgedDataError(f"{where}: unknown field(s) {', '.join(unknown)}")


def _no_duplicates(values: list[str], what: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise JudgedDataError(f"{what} {value!r} is listed twice")
        seen.add(value)
