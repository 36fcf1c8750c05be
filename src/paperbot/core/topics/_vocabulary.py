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
from paperbot.core.topics._keys import term_key

TopicKind = Literal["topic", "keyword"]

TOPIC_TEXT_MAX = 100
"""Longest topic a user may type (also Discord's choice name/value limit)."""

_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_TOPIC_KEYS = frozenset({"id", "name", "zh", "aliases"})
_ID_MAX = 40


@dataclass(frozen=True, slots=True)
class Topic:
    """A vocabulary topic, or a free keyword a user subscribed to.

    For a vocabulary topic `key` is its slug id; for a keyword it is the
    keyword's `term_key`, and `name` is the keyword as the user wrote it.
    """

    kind: TopicKind
    key: str
    name: str
    zh: str = ""
    aliases: tuple[str, ...] = ()

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
        return (self.name, self.zh, *self.aliases) if self.zh else (self.name, *self.aliases)

    @property
    def label(self) -> str:
        """How the bot shows the topic: both names, or the keyword quoted."""
        if self.is_keyword:
            return f"“{self.name}” (keyword · 关键词)"
        return f"{self.name} · {self.zh}"


class VocabularyError(ValueError):
    """The vocabulary file is malformed; `str()` names the file and line."""


@dataclass(frozen=True)
class Vocabulary:
    """The canonical topics, with lookup by id and by any term's key."""

    topics: tuple[Topic, ...]
    _by_id: dict[str, Topic] = field(init=False, repr=False, compare=False)
    _by_key: dict[str, Topic] = field(init=False, repr=False, compare=False)
    _surfaces: tuple[tuple[str, Topic, str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_id = {t.key: t for t in self.topics}
        by_key: dict[str, Topic] = {}
        for topic in self.topics:
            for text in (topic.key.replace("-", " "), *topic.terms):
                by_key.setdefault(term_key(text), topic)
        object.__setattr__(self, "_by_id", by_id)
        object.__setattr__(self, "_by_key", by_key)
        surfaces = tuple((normalize(t), topic, t) for topic in self.topics for t in topic.terms)
        object.__setattr__(self, "_surfaces", surfaces)

    def __len__(self) -> int:
        return len(self.topics)

    def get(self, topic_id: str) -> Topic | None:
        """The topic with this slug id, if the vocabulary has it."""
        return self._by_id.get(topic_id)

    def lookup(self, text: str) -> Topic | None:
        """The topic that has `text` (any case, script or inflection) as a term."""
        return self._by_key.get(term_key(text))

    @property
    def surfaces(self) -> tuple[tuple[str, Topic, str], ...]:
        """(normalised term, topic, term as written) for every name and alias."""
        return self._surfaces

    @property
    def term_keys(self) -> Mapping[str, Topic]:
        """Every term key (names, aliases, ids) -> its topic."""
        return self._by_key

    def term_words(self) -> frozenset[str]:
        """Every folded Latin word in any term: never treated as someone's typo."""
        return frozenset(w for key in self._by_key for w in key.split() if not is_cjk_run(w))

    def expansions(self) -> dict[str, tuple[str, ...]]:
        """For query expansion: `normalize(term)` -> the topic's other terms, normalised.

        Every name and alias of every topic is a key; the value lists the
        same topic's other names and aliases in both languages, in file order.
        """
        result: dict[str, tuple[str, ...]] = {}
        for topic in self.topics:
            forms = tuple(dict.fromkeys(normalize(t) for t in topic.terms))
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
    return Vocabulary(tuple(topics))


def _raw_topics(data: dict[str, Any], lines: _Lines) -> list[Any]:
    """The `[[topic]]` tables of the parsed file, or an error for anything else."""
    unknown = sorted(set(data) - {"topic"})
    if unknown:
        raise lines.error(
            lines.find_key(unknown[0], 0, len(lines.lines)),
            f"unknown key {unknown[0]!r}; every topic is a [[topic]] table",
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
    aliases = raw.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise lines.error(
            lines.find_key("aliases", start, end), "'aliases' must be a list of strings"
        )
    topic = Topic(
        "topic",
        topic_id,
        collapse_whitespace(raw["name"]),
        collapse_whitespace(raw["zh"]),
        tuple(collapse_whitespace(a) for a in aliases),
    )
    _check_topic_terms(topic, block, lines)
    return topic


def _check_topic_keys(raw: dict[str, Any], block: tuple[int, int], lines: _Lines) -> None:
    """No unknown keys; `id`, `name` and `zh` present as non-empty strings."""
    start, end = block
    for key in sorted(set(raw) - _TOPIC_KEYS):
        raise lines.error(
            lines.find_key(key, start, end), f"unknown key {key!r} (allowed: aliases, id, name, zh)"
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

    _HEADER = re.compile(r"^\s*\[\[\s*topic\s*\]\]")

    def __init__(self, text: str, source: str) -> None:
        self.lines = text.splitlines()
        self.source = source
        self.headers = [i for i, line in enumerate(self.lines) if self._HEADER.match(line)]

    def block(self, index: int) -> tuple[int, int]:
        """0-based [start, end) line range of the index-th [[topic]] table."""
        if index >= len(self.headers):
            return (0, len(self.lines))
        start = self.headers[index]
        end = self.headers[index + 1] if index + 1 < len(self.headers) else len(self.lines)
        return (start, end)

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
