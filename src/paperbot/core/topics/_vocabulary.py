"""Topics, the vocabulary, and parsing its TOML text with line-numbered errors."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from paperbot.core.text import (
    collapse_whitespace,
    has_cjk,
    is_cjk_run,
    normalize,
    strip_invisible,
)
from paperbot.core.topics._hierarchy import broader_mistake, narrower_ids
from paperbot.core.topics._keys import term_key

TopicKind = Literal["topic", "keyword"]

TOPIC_TEXT_MAX = 100
"""Longest topic a user may type (also Discord's choice name/value limit)."""

_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_TOPIC_KEYS = frozenset({"id", "name", "zh", "aliases", "weak_aliases", "broader"})
_CONCEPT_KEYS = frozenset({"en", "zh"})
_TABLES = ("topic", "concept")
_ID_MAX = 40


@dataclass(frozen=True, slots=True)
class Topic:
    """A vocabulary topic, or a free keyword a user subscribed to.

    For a vocabulary topic `key` is its slug id; for a keyword it is the
    keyword's `term_key` (for one saying an alias of a topic, the key of
    that topic's first term the alias's concept holds: `_input.resolve`),
    and `name` is the keyword as the user wrote it.
    """

    kind: TopicKind
    key: str
    name: str
    zh: str = ""
    aliases: tuple[str, ...] = ()
    weak_aliases: tuple[str, ...] = ()
    """Ambiguous aliases: they count for a paper only in its title or beside
    another term of the topic (`teacher` alone is no distillation paper)."""
    broader: tuple[str, ...] = ()
    """Ids of the topics this one is a kind of (speculative decoding is
    efficient inference): its strong terms count for them too."""

    @classmethod
    def keyword(cls, text: str) -> Topic:
        """A free keyword; `text` must already be valid (see `check_topic_text`)."""
        return cls("keyword", term_key(text), collapse_whitespace(strip_invisible(text)))

    @property
    def is_keyword(self) -> bool:
        return self.kind == "keyword"

    @property
    def terms(self) -> tuple[str, ...]:
        """Every surface form the topic is known by: names first, then aliases."""
        names = (self.name, self.zh) if self.zh else (self.name,)
        return (*names, *self.aliases, *self.weak_aliases)

    @property
    def label(self) -> str:
        """How the bot shows the topic: both names, or the keyword quoted."""
        if self.is_keyword:
            return f"“{self.name}” (keyword · 关键词)"
        return f"{self.name} · {self.zh}"


@dataclass(frozen=True, slots=True)
class Concept:
    """One idea said in English and Chinese, for bilingual keyword expansion."""

    en: tuple[str, ...]
    zh: tuple[str, ...]

    @property
    def terms(self) -> tuple[str, ...]:
        return (*self.en, *self.zh)


class VocabularyError(ValueError):
    """The vocabulary file is malformed; `str()` names the file and line."""


@dataclass(frozen=True)
class Vocabulary:
    """The canonical topics, with lookup by id and by any term's key."""

    topics: tuple[Topic, ...]
    concepts: tuple[Concept, ...] = ()
    _by_id: dict[str, Topic] = field(init=False, repr=False, compare=False)
    _by_key: dict[str, Topic] = field(init=False, repr=False, compare=False)
    _surfaces: tuple[tuple[str, Topic, str], ...] = field(init=False, repr=False, compare=False)
    _concept_keys: tuple[tuple[str, ...], ...] = field(init=False, repr=False, compare=False)
    _last_words: frozenset[str] = field(init=False, repr=False, compare=False)
    _narrower: dict[str, tuple[Topic, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_id = {t.key: t for t in self.topics}
        by_key: dict[str, Topic] = {}
        for topic in self.topics:
            for text in (topic.key.replace("-", " "), *topic.terms):
                by_key.setdefault(term_key(text), topic)
        object.__setattr__(self, "_by_id", by_id)
        object.__setattr__(self, "_by_key", by_key)
        last_words = frozenset(key.rsplit(" ", 1)[-1] for key in by_key)
        object.__setattr__(self, "_last_words", last_words)
        surfaces = tuple((normalize(t), topic, t) for topic in self.topics for t in topic.terms)
        object.__setattr__(self, "_surfaces", surfaces)
        concept_keys = tuple(
            tuple(dict.fromkeys(k for k in map(term_key, c.terms) if k)) for c in self.concepts
        )
        object.__setattr__(self, "_concept_keys", concept_keys)
        below = narrower_ids([(t.key, t.broader) for t in self.topics])
        narrower = {key: tuple(by_id[k] for k in keys) for key, keys in below.items()}
        object.__setattr__(self, "_narrower", narrower)

    def __len__(self) -> int:
        return len(self.topics)

    def get(self, topic_id: str) -> Topic | None:
        """The topic with this slug id, if the vocabulary has it."""
        return self._by_id.get(topic_id)

    def lookup(self, text: str) -> Topic | None:
        """The topic that has `text` (any case, script or inflection) as a term."""
        return self._by_key.get(term_key(text))

    def narrower(self, topic_id: str) -> tuple[Topic, ...]:
        """The topics that are kinds of this one, at any depth (`broader`)."""
        return self._narrower.get(topic_id, ())

    @property
    def surfaces(self) -> tuple[tuple[str, Topic, str], ...]:
        """(normalised term, topic, term as written) for every name and alias."""
        return self._surfaces

    @property
    def concept_keys(self) -> tuple[tuple[str, ...], ...]:
        """Per `[[concept]]`, its English and Chinese terms' keys (no repeats)."""
        return self._concept_keys

    @property
    def term_keys(self) -> Mapping[str, Topic]:
        """Every term key (names, aliases, ids) -> its topic."""
        return self._by_key

    @property
    def term_last_words(self) -> frozenset[str]:
        """The last word of every term key: a word that ends no term ends no
        qualifier either (`_sense` rejects most words before a term by it)."""
        return self._last_words

    def term_words(self) -> frozenset[str]:
        """Every folded Latin word in any term: never treated as someone's typo."""
        return frozenset(w for key in self._by_key for w in key.split() if not is_cjk_run(w))

    def expansions(self) -> dict[str, tuple[str, ...]]:
        """For query expansion: `normalize(term)` -> the topic's other terms, normalised.

        Every name and alias of every topic is a key; the value lists the
        same topic's other names and aliases in both languages, in file order.
        Weak aliases are left out both ways: they are ambiguous without the
        context a query does not give (`teacher` is no distillation query).
        """
        result: dict[str, tuple[str, ...]] = {}
        for topic in self.topics:
            strong = (t for t in topic.terms if t not in topic.weak_aliases)
            forms = tuple(dict.fromkeys(normalize(t) for t in strong))
            for form in forms:
                result.setdefault(form, tuple(f for f in forms if f != form))
        return result


# --------------------------------------------------------------------------
# Parsing


def parse_vocabulary(text: str, source: str = "topics.toml") -> Vocabulary:
    """Parse and validate the vocabulary file's text.

    Format: one `[[topic]]` table per topic with `id` (a slug such as
    `scaling-laws`), `name` (English), `zh` (Chinese) and optional `aliases`
    (a list of strings in either language). Raises `VocabularyError` naming
    `source` and the line for every kind of mistake: bad TOML, unknown or
    missing keys, wrong types, duplicate ids, a term used twice.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise VocabularyError(f"{source}: not valid TOML: {exc}") from None
    lines = _Lines(text, source)
    topics: list[Topic] = []
    seen_ids: dict[str, int] = {}
    seen_terms: dict[str, tuple[str, str]] = {}
    for index, raw in enumerate(_raw_topics(data, lines)):
        block = lines.block(index)
        topic = _parse_topic(raw, block, lines)
        _check_new_id(topic, index, block, seen_ids, lines)
        _check_new_terms(topic, block, seen_terms, lines)
        topics.append(topic)
    concepts = _parse_concepts(data.get("concept", []), lines)
    _check_broader(topics, lines)
    return Vocabulary(tuple(topics), concepts)


def _raw_topics(data: dict[str, Any], lines: _Lines) -> list[Any]:
    """The `[[topic]]` tables of the parsed file, or an error for anything else."""
    unknown = sorted(set(data) - set(_TABLES))
    if unknown:
        raise lines.error(
            lines.find_key(unknown[0], 0, len(lines.lines)),
            f"unknown key {unknown[0]!r}; every topic is a [[topic]] table"
            " and every bilingual concept a [[concept]] table",
        )
    raw_topics = data.get("topic", [])
    if not isinstance(raw_topics, list) or not raw_topics:
        raise VocabularyError(
            f"{lines.source}: no topics: add [[topic]] tables with id, name and zh"
        )
    return raw_topics


def _check_new_id(
    topic: Topic, index: int, block: tuple[int, int], seen_ids: dict[str, int], lines: _Lines
) -> None:
    """Record the topic's id, or raise when an earlier topic has it."""
    if topic.key in seen_ids:
        raise lines.error(
            lines.find_key("id", *block),
            f"duplicate topic id {topic.key!r} (first used by topic #{seen_ids[topic.key] + 1})",
        )
    seen_ids[topic.key] = index


def _check_new_terms(
    topic: Topic, block: tuple[int, int], seen_terms: dict[str, tuple[str, str]], lines: _Lines
) -> None:
    """Record the topic's term keys, or raise for one used before (here or elsewhere)."""
    for term in topic.terms:
        key = term_key(term)
        if key in seen_terms:
            owner, first = seen_terms[key]
            where = "twice in this topic" if owner == topic.key else f"already in topic {owner!r}"
            raise lines.error(
                lines.find_term(topic, term, *block),
                f"{term!r} is {where} (as {first!r}, once case, script and plurals"
                " are ignored); each name and alias must be unique",
            )
        seen_terms[key] = (topic.key, term)


def _parse_topic(raw: Any, block: tuple[int, int], lines: _Lines) -> Topic:
    start, end = block
    if not isinstance(raw, dict):
        raise lines.error(start, "a topic must be a [[topic]] table")
    _check_topic_keys(raw, block, lines)
    topic_id = raw["id"].strip()
    if not _SLUG.match(topic_id) or len(topic_id) > _ID_MAX:
        raise lines.error(
            lines.find_key("id", start, end),
            f"id {topic_id!r} must be a slug: lower-case letters, digits and single hyphens,"
            f" at most {_ID_MAX} characters",
        )
    if not has_cjk(raw["zh"]):
        raise lines.error(lines.find_key("zh", start, end), f"zh {raw['zh']!r} holds no Chinese")
    topic = Topic(
        "topic",
        topic_id,
        collapse_whitespace(raw["name"]),
        collapse_whitespace(raw["zh"]),
        _string_list(raw, "aliases", block, lines),
        _string_list(raw, "weak_aliases", block, lines),
        tuple(b.strip() for b in _string_list(raw, "broader", block, lines)),
    )
    _check_topic_terms(topic, block, lines)
    return topic


def _string_list(
    raw: dict[str, Any], key: str, block: tuple[int, int], lines: _Lines
) -> tuple[str, ...]:
    """An optional list of strings, whitespace collapsed."""
    values = raw.get(key, [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise lines.error(lines.find_key(key, *block), f"{key!r} must be a list of strings")
    return tuple(collapse_whitespace(v) for v in values)


def _check_broader(topics: list[Topic], lines: _Lines) -> None:
    """Every `broader` id names another topic, and none is above itself."""
    mistake = broader_mistake([(t.key, t.broader) for t in topics])
    if mistake is not None:
        index, message = mistake
        raise lines.error(lines.find_key("broader", *lines.block(index)), message)


def _parse_concepts(raw: Any, lines: _Lines) -> tuple[Concept, ...]:
    """The `[[concept]]` tables: each needs English (`en`) and Chinese (`zh`) terms."""
    if not isinstance(raw, list):
        raise lines.error(lines.find_key("concept", 0, len(lines.lines)), "bad [[concept]]")
    concepts: list[Concept] = []
    for index, table in enumerate(raw):
        block = lines.block(index, "concept")
        if not isinstance(table, dict):
            raise lines.error(block[0], "a concept must be a [[concept]] table")
        for key in sorted(set(table) - _CONCEPT_KEYS):
            raise lines.error(lines.find_key(key, *block), f"unknown key {key!r} (allowed: en, zh)")
        en = _string_list(table, "en", block, lines)
        zh = _string_list(table, "zh", block, lines)
        if not en or not zh or not all(has_cjk(z) for z in zh):
            raise lines.error(block[0], "a concept needs English 'en' and Chinese 'zh' terms")
        if not all(term_key(t) for t in (*en, *zh)):
            raise lines.error(block[0], "every concept term needs letters to match")
        concepts.append(Concept(en, zh))
    return tuple(concepts)


def _check_topic_keys(raw: dict[str, Any], block: tuple[int, int], lines: _Lines) -> None:
    """No unknown keys; `id`, `name` and `zh` present as non-empty strings."""
    start, end = block
    for key in sorted(set(raw) - _TOPIC_KEYS):
        raise lines.error(
            lines.find_key(key, start, end),
            f"unknown key {key!r} (allowed: aliases, broader, id, name, weak_aliases, zh)",
        )
    for key in ("id", "name", "zh"):
        if key not in raw:
            raise lines.error(start, f"topic is missing {key!r}")
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise lines.error(
                lines.find_key(key, start, end), f"{key!r} must be a non-empty string"
            )


def _check_topic_terms(topic: Topic, block: tuple[int, int], lines: _Lines) -> None:
    """Every name and alias has something to match and fits a Discord choice."""
    for term in topic.terms:
        if not term_key(term):
            raise lines.error(
                lines.find_term(topic, term, *block), f"{term!r} has no letters to match"
            )
        if len(term) > TOPIC_TEXT_MAX:
            raise lines.error(
                lines.find_term(topic, term, *block),
                f"{term[:30]!r}… is longer than {TOPIC_TEXT_MAX}",
            )


class _Lines:
    """Line numbers for semantic errors (tomllib gives positions only for syntax)."""

    _HEADER = re.compile(r"^\s*\[\[\s*(topic|concept)\s*\]\]")

    def __init__(self, text: str, source: str) -> None:
        self.lines = text.splitlines()
        self.source = source
        found = [(i, self._HEADER.match(line)) for i, line in enumerate(self.lines)]
        self.starts = [i for i, m in found if m]
        self.kinds = {i: m.group(1) for i, m in found if m}

    def block(self, index: int, table: str = "topic") -> tuple[int, int]:
        """0-based [start, end) line range of the index-th [[table]] table."""
        headers = [i for i in self.starts if self.kinds[i] == table]
        if index >= len(headers):
            return (0, len(self.lines))
        start = headers[index]
        later = [i for i in self.starts if i > start]
        return (start, later[0] if later else len(self.lines))

    def find_key(self, key: str, start: int, end: int) -> int:
        pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
        return next((i for i in range(start, end) if pattern.match(self.lines[i])), start)

    def find_term(self, topic: Topic, term: str, start: int, end: int) -> int:
        """The line of a topic's name, zh or alias (the first alias spelt so)."""
        if term == topic.name:
            return self.find_key("name", start, end)
        if term == topic.zh:
            return self.find_key("zh", start, end)
        first = self.find_key("aliases", start, end)
        quoted = (f'"{term}"', f"'{term}'")
        found = (i for i in range(first, end) if any(q in self.lines[i] for q in quoted))
        return next(found, first)

    def error(self, line: int, message: str) -> VocabularyError:
        return VocabularyError(f"{self.source}:{line + 1}: {message}")
