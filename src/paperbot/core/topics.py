"""Topics: the bilingual vocabulary, resolving what users type, matching papers.

Pure functions only. The vocabulary arrives as TOML text (the service reads
the file); matching works on a `TopicCorpus` built once per corpus version.

Every piece of text, vocabulary and paper alike, is reduced to one *key*
form: `core.text.normalize` (NFKC, case-folded, traditional -> simplified),
split into tokens (CJK runs and Latin words), Latin words light-stemmed with
`fold_word`, joined by single spaces. In that form a Latin alias is a whole
word sequence (`" rl "` is never found inside `" url "`), inflections meet
(`scaling laws` finds `scaling law`), and a Chinese alias is a plain
substring (Chinese has no spaces between words).

Batch matching (`match_topic`) narrows candidates with per-field postings
(Latin word -> papers, CJK character -> papers) and verifies each candidate
with one substring test, so a topic over 100,000 papers costs milliseconds.
"""

from __future__ import annotations

import re
import tomllib
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from paperbot.core import limits
from paperbot.core.text import (
    collapse_whitespace,
    fold_word,
    has_cjk,
    is_cjk_run,
    normalize,
    strip_invisible,
    tokens,
)

TopicKind = Literal["topic", "keyword"]

TOPIC_TEXT_MAX = 100
"""Longest topic a user may type (also Discord's choice name/value limit)."""

TITLE_WEIGHT = 3.0
SUMMARY_WEIGHT = 1.0
EXTRA_TERM_WEIGHT = 0.25
EXTRA_TERMS_COUNTED = 3
TYPO_QUALITY = 0.7
"""A hit through a misspelt word counts this much of an exact hit."""

TYPO_MIN_LENGTH = 7
"""Shorter words are never typo-matched: `merging`/`emerging`-style pairs of
real words are common among short words and rare among long ones."""

_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_FIELDS = ("title", "summary")
_TOPIC_KEYS = frozenset({"id", "name", "zh", "aliases"})
_ID_MAX = 40
_LATIN_LAST = "\u024f"

IntArray = npt.NDArray[np.int64]
PosArray = npt.NDArray[np.int32]
"""Positions of papers inside a `TopicCorpus` (not paper ids)."""
FloatArray = npt.NDArray[np.float64]


# --------------------------------------------------------------------------
# Keys


def term_key(text: str) -> str:
    """The matching form of any text: normalised tokens, Latin words folded."""
    return " ".join([t if _is_cjk_token(t) else fold_word(t) for t in tokens(normalize(text))])


def _is_cjk_token(token: str) -> bool:
    """For tokens of `core.text.tokens` (and their folds): a CJK run, not a Latin word.

    Latin word characters all sit below U+0250 and CJK ones above U+3400, so
    the first character decides; much cheaper than a regex per token.
    """
    return token[0] > _LATIN_LAST


def _needle(key: str) -> str:
    """What to look for in a padded document key: Latin ends must be word ends."""
    lead = "" if is_cjk_run(key[0]) else " "
    trail = "" if is_cjk_run(key[-1]) else " "
    return f"{lead}{key}{trail}"


def _document(text: str) -> str:
    """A field's key padded with spaces so every Latin word has spaces around it."""
    return f" {term_key(text)} "


# --------------------------------------------------------------------------
# Topics and the vocabulary


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
    unknown = sorted(set(data) - {"topic"})
    if unknown:
        raise lines.error(
            lines.find_key(unknown[0], 0, len(lines.lines)),
            f"unknown key {unknown[0]!r}; every topic is a [[topic]] table",
        )
    raw_topics = data.get("topic", [])
    if not isinstance(raw_topics, list) or not raw_topics:
        raise VocabularyError(f"{source}: no topics: add [[topic]] tables with id, name and zh")
    topics: list[Topic] = []
    seen_ids: dict[str, int] = {}
    seen_terms: dict[str, tuple[str, str]] = {}
    for index, raw in enumerate(raw_topics):
        block = lines.block(index)
        topic = _parse_topic(raw, block, lines)
        if topic.key in seen_ids:
            raise lines.error(
                lines.find_key("id", *block),
                f"duplicate topic id {topic.key!r}"
                f" (first used by topic #{seen_ids[topic.key] + 1})",
            )
        seen_ids[topic.key] = index
        for term in topic.terms:
            key = term_key(term)
            if key in seen_terms:
                owner, first = seen_terms[key]
                where = (
                    "twice in this topic" if owner == topic.key else f"already in topic {owner!r}"
                )
                raise lines.error(
                    lines.find_term(topic, term, *block),
                    f"{term!r} is {where} (as {first!r}, once case, script and plurals"
                    " are ignored); each name and alias must be unique",
                )
            seen_terms[key] = (topic.key, term)
        topics.append(topic)
    return Vocabulary(tuple(topics))


def _parse_topic(raw: Any, block: tuple[int, int], lines: _Lines) -> Topic:
    start, end = block
    if not isinstance(raw, dict):
        raise lines.error(start, "a topic must be a [[topic]] table")
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
    for term in topic.terms:
        if not term_key(term):
            raise lines.error(
                lines.find_term(topic, term, start, end), f"{term!r} has no letters to match"
            )
        if len(term) > TOPIC_TEXT_MAX:
            raise lines.error(
                lines.find_term(topic, term, start, end),
                f"{term[:30]!r}… is longer than {TOPIC_TEXT_MAX}",
            )
    return topic


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


# --------------------------------------------------------------------------
# What users type


EMPTY_TOPIC = "Type a topic, for example “scaling laws” or “缩放定律”."
TOPIC_TOO_LONG = "A topic can be at most {limit} characters; yours has {length}."
NO_LETTERS = "A topic needs at least one letter or Chinese character."


class TopicInputError(ValueError):
    """The text cannot be a topic. `str()` is the English message; `template`
    and `values` let the bot show it in the user's language."""

    def __init__(self, template: str, **values: object) -> None:
        super().__init__(template.format(**values))
        self.template = template
        self.values = values


def check_topic_text(text: str) -> str:
    """The text, trimmed, or `TopicInputError` when it cannot be a topic."""
    cleaned = collapse_whitespace(strip_invisible(text))
    if not cleaned:
        raise TopicInputError(EMPTY_TOPIC)
    if len(cleaned) > TOPIC_TEXT_MAX:
        raise TopicInputError(TOPIC_TOO_LONG, limit=TOPIC_TEXT_MAX, length=len(cleaned))
    if not any(ch.isalpha() for ch in cleaned) or not term_key(cleaned):
        raise TopicInputError(NO_LETTERS)
    return cleaned


def _fuzzy_budget(key: str) -> int:
    """Edits allowed between a typed key and a term key of the vocabulary."""
    if len(key) >= 9:
        return 2
    return 1 if len(key) >= 5 else 0


def resolve(text: str, vocabulary: Vocabulary) -> Topic:
    """What the user means: a topic by id, name or alias, a close misspelling
    of one, else a free keyword. Raises `TopicInputError` for unusable text."""
    cleaned = check_topic_text(text)
    exact = vocabulary.get(cleaned) or vocabulary.lookup(cleaned)
    if exact is not None:
        return exact
    fuzzy = _closest_term(term_key(cleaned), vocabulary)
    return fuzzy if fuzzy is not None else Topic.keyword(cleaned)


def _closest_term(key: str, vocabulary: Vocabulary) -> Topic | None:
    budget = _fuzzy_budget(key)
    if budget == 0:
        return None
    keys = list(vocabulary.term_keys)
    found = process.extractOne(key, keys, scorer=OSA.distance, score_cutoff=budget)
    if found is None:
        return None
    # Short vocabulary terms (`dpo`, `moe`) must not swallow longer typed words.
    if _fuzzy_budget(found[0]) == 0:
        return None
    return vocabulary.term_keys[found[0]]


# --------------------------------------------------------------------------
# Autocomplete


@dataclass(frozen=True, slots=True)
class Choice:
    """One autocomplete choice: `name` is shown, `value` comes back."""

    name: str
    value: str


def clip(text: str, limit: int = limits.CHOICE_NAME_MAX) -> str:
    """Text cut to `limit` characters with an ellipsis when it is longer."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def suggest(
    text: str, vocabulary: Vocabulary, limit: int = limits.AUTOCOMPLETE_CHOICES_MAX
) -> list[Choice]:
    """Autocomplete for /subscribe: topics best first, and the text itself as
    a free keyword when it is not a vocabulary topic.

    Empty text lists the vocabulary alphabetically. Every name and value is
    1-100 characters; at most `limit` choices.
    """
    # Discord sends up to 6,000 characters; a topic is at most 100, and fuzzy
    # ranking costs grow with the query's length.
    query = normalize(text[: 4 * TOPIC_TEXT_MAX])[:TOPIC_TEXT_MAX]
    if not query:
        ranked = sorted(vocabulary.topics, key=lambda t: t.name.casefold())
        return [_topic_choice(t, None) for t in ranked[:limit]]
    scored = _rank_topics(query, vocabulary)
    choices = [_topic_choice(topic, via) for _, topic, via in scored]
    keyword = _keyword_choice(text, vocabulary)
    if keyword is not None:
        strong = sum(1 for score, _, _ in scored if score >= _STRONG)
        choices.insert(min(strong, limit - 1), keyword)
    return choices[:limit]


_STRONG = 80.0
"""Topic suggestions scoring at least this go before the keyword choice."""
_FUZZY_CUTOFF = 75.0


def _rank_topics(query: str, vocabulary: Vocabulary) -> list[tuple[float, Topic, str | None]]:
    """(score 0-100, topic, alias that matched if not a name), best first."""
    best: dict[str, tuple[float, Topic, str | None]] = {}
    surfaces = vocabulary.surfaces
    fuzzy: dict[int, float] = {}
    if len(query) >= 4:
        found = process.extract(
            query,
            [s for s, _, _ in surfaces],
            scorer=fuzz.partial_ratio,
            score_cutoff=_FUZZY_CUTOFF,
            limit=None,
        )
        fuzzy = {index: 0.95 * score for _, score, index in found}
    for index, (surface, topic, term) in enumerate(surfaces):
        score = _surface_score(query, surface)
        if score is None:
            score = fuzzy.get(index)
        if score is None:
            continue
        via = None if term in (topic.name, topic.zh) else term
        if via is None:
            score += 1.0  # on a tie, a canonical name reads better than an alias
        current = best.get(topic.key)
        if current is None or score > current[0]:
            best[topic.key] = (score, topic, via)
    return sorted(best.values(), key=lambda item: (-item[0], item[1].name.casefold()))


def _surface_score(query: str, surface: str) -> float | None:
    if surface == query:
        return 100.0
    if surface.startswith(query):
        return 95.0 - min(len(surface) - len(query), 10) * 0.2
    if any(word.startswith(query) for word in re.split(r"[\s\-/]+", surface)):
        return 90.0
    if query in surface:
        # Chinese has no spaces, so a CJK query inside a term is a real hit;
        # Latin text inside a longer word (`lora` in `exploration`) is weak.
        return 88.0 if has_cjk(query) else 70.0
    return None


def _topic_choice(topic: Topic, via: str | None) -> Choice:
    name = topic.label if via is None else f"{topic.label} ({via})"
    return Choice(clip(name), topic.key)


def _keyword_choice(text: str, vocabulary: Vocabulary) -> Choice | None:
    try:
        topic = resolve(text, vocabulary)
    except TopicInputError:
        return None
    if not topic.is_keyword:
        return None
    return Choice(clip(topic.label), topic.name)


# --------------------------------------------------------------------------
# Matching


@dataclass(frozen=True)
class _Field:
    """One field (title or summary) of every paper, ready for matching."""

    docs: tuple[str, ...]
    word_postings: dict[str, PosArray]
    char_postings: dict[str, PosArray]
    words: tuple[str, ...]
    """Distinct folded Latin words, for finding misspellings."""


@dataclass(frozen=True)
class TopicCorpus:
    """Papers pre-normalised for matching. Build once per corpus version."""

    ids: IntArray
    title: _Field
    summary: _Field

    def __len__(self) -> int:
        return len(self.ids)

    def field(self, name: str) -> _Field:
        return self.title if name == "title" else self.summary


def build_corpus(papers: Iterable[tuple[int, str, str]]) -> TopicCorpus:
    """From (paper id, title, summary) triples."""
    ids: list[int] = []
    titles: list[str] = []
    summaries: list[str] = []
    for paper_id, title, summary in papers:
        ids.append(paper_id)
        titles.append(_document(title))
        summaries.append(_document(summary))
    return TopicCorpus(
        np.asarray(ids, dtype=np.int64), _build_field(titles), _build_field(summaries)
    )


def _build_field(docs: list[str]) -> _Field:
    word_ids: dict[str, int] = {}
    # Compact buffers: a Python list of millions of ints would cost ~36 bytes each.
    word_keys = array("i")
    word_counts: list[int] = []
    cjk_parts: list[str] = []
    cjk_counts: list[int] = []
    for doc in docs:
        distinct = set(doc.split())
        latin = [t for t in distinct if t[0] <= _LATIN_LAST]
        word_keys.extend([word_ids.setdefault(t, len(word_ids)) for t in latin])
        word_counts.append(len(latin))
        chars = set("".join([t for t in distinct if t[0] > _LATIN_LAST]))
        cjk_parts.append("".join(chars))
        cjk_counts.append(len(chars))
    positions = np.arange(len(docs), dtype=np.int32)
    words = list(word_ids)
    keys = np.frombuffer(word_keys, dtype=np.int32) if word_keys else np.zeros(0, np.int32)
    word_postings = _postings(keys, np.repeat(positions, word_counts))
    codes = np.frombuffer("".join(cjk_parts).encode("utf-32-le"), dtype=np.uint32)
    char_postings = _postings(codes, np.repeat(positions, cjk_counts))
    return _Field(
        docs=tuple(docs),
        word_postings={words[k]: v for k, v in word_postings.items()},
        char_postings={chr(k): v for k, v in char_postings.items()},
        words=tuple(words),
    )


def _postings(keys: npt.NDArray[np.integer[Any]], docs: PosArray) -> dict[int, PosArray]:
    """key -> ascending document positions, from parallel arrays with `docs` ascending."""
    if len(keys) == 0:
        return {}
    # A stable sort by key keeps each key's documents in their ascending order;
    # numpy sorts 16-bit keys (most CJK characters, small vocabularies) by radix.
    narrow = keys.astype(np.uint16) if int(np.max(keys)) < 1 << 16 else keys
    order = np.argsort(narrow, kind="stable")
    keys, docs = keys[order], docs[order]
    bounds = np.flatnonzero(np.diff(keys)) + 1
    starts = np.concatenate(([0], bounds)).tolist()
    ends = np.concatenate((bounds, [len(keys)])).tolist()
    firsts = keys[starts].tolist()
    return {key: docs[s:e] for key, s, e in zip(firsts, starts, ends, strict=True)}


@dataclass(frozen=True, slots=True)
class _Term:
    """One way a topic shows up in text: the key searched, and how it is told."""

    key: str
    shown: str
    quality: float


def _topic_terms(topic: Topic) -> list[_Term]:
    seen: dict[str, _Term] = {}
    for text in topic.terms:
        key = term_key(text)
        if key and key not in seen:
            seen[key] = _Term(key, text, 1.0)
    return list(seen.values())


def is_typo_of(word: str, candidate: str, protected: frozenset[str] = frozenset()) -> bool:
    """True when `candidate` is treated as a misspelling of vocabulary word `word`.

    Conservative on purpose: long words only, same first letter, one edit
    (two for words of 12+ letters; a swap of neighbours is one edit), and
    never a word the vocabulary itself uses.
    """
    if len(word) < TYPO_MIN_LENGTH or candidate == word or candidate in protected:
        return False
    if is_cjk_run(candidate) or candidate[:1] != word[:1]:
        return False
    budget = 2 if len(word) >= 12 else 1
    return OSA.distance(word, candidate, score_cutoff=budget) <= budget


def _typo_terms(term: _Term, words: Sequence[str], protected: frozenset[str]) -> list[_Term]:
    """Variants of a term with one of its long words replaced by a misspelling found in `words`."""
    variants: list[_Term] = []
    parts = term.key.split(" ")
    for index, word in enumerate(parts):
        if len(word) < TYPO_MIN_LENGTH or is_cjk_run(word):
            continue
        budget = 2 if len(word) >= 12 else 1
        for candidate, _, _ in process.extract(
            word, words, scorer=OSA.distance, score_cutoff=budget, limit=None
        ):
            if is_typo_of(word, candidate, protected):
                key = " ".join([*parts[:index], candidate, *parts[index + 1 :]])
                variants.append(_Term(key, f"{key} ≈ {term.shown}", TYPO_QUALITY))
    return variants


def _field_hits(term: _Term, data: _Field) -> PosArray:
    """Positions of the documents of one field that contain the term."""
    lists: list[PosArray] = []
    for part in term.key.split(" "):
        if is_cjk_run(part):
            lists.extend(data.char_postings.get(ch, _EMPTY) for ch in set(part))
        else:
            lists.append(data.word_postings.get(part, _EMPTY))
    lists.sort(key=len)
    candidates = lists[0]
    for other in lists[1:]:
        if len(candidates) == 0:
            break
        candidates = np.intersect1d(candidates, other, assume_unique=True)
    needle = _needle(term.key)
    docs = data.docs
    return np.fromiter((p for p in candidates.tolist() if needle in docs[p]), dtype=np.int64)


_EMPTY: PosArray = np.zeros(0, dtype=np.int32)


@dataclass(frozen=True, slots=True)
class TopicMatches:
    """Papers matching one topic, best first: parallel `ids` and `scores`."""

    ids: IntArray
    scores: FloatArray

    def __len__(self) -> int:
        return len(self.ids)

    @classmethod
    def empty(cls) -> TopicMatches:
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))


def match_topic(
    topic: Topic, corpus: TopicCorpus, protected: frozenset[str] = frozenset()
) -> TopicMatches:
    """Every paper of the corpus matching the topic, with scores, best first.

    score = 3 x (title hit) + 1 x (summary hit) + 0.25 per extra distinct
    term (up to 3), where a hit through a misspelling counts 0.7. Ties are
    broken by paper id. Vocabulary topics tolerate misspelt long words in
    the papers; keywords match exactly (after folding). Pass
    `vocabulary.term_words()` as `protected` so one vocabulary word is never
    taken for a misspelling of another.
    """
    n = len(corpus)
    best = {name: np.zeros(n, dtype=np.float64) for name in _FIELDS}
    distinct = np.zeros(n, dtype=np.int64)
    for term in _topic_terms(topic):
        variants = [term]
        if not topic.is_keyword:
            for name in _FIELDS:
                variants += _typo_terms(term, corpus.field(name).words, protected)
        touched = _EMPTY
        for variant in variants:
            for name in _FIELDS:
                hits = _field_hits(variant, corpus.field(name))
                if len(hits):
                    np.maximum.at(best[name], hits, variant.quality)
                    touched = np.union1d(touched, hits)
        distinct[touched] += 1
    score = TITLE_WEIGHT * best["title"] + SUMMARY_WEIGHT * best["summary"]
    score += EXTRA_TERM_WEIGHT * np.clip(distinct - 1, 0, EXTRA_TERMS_COUNTED)
    positions = np.flatnonzero(distinct > 0)
    order = np.lexsort((corpus.ids[positions], -score[positions]))
    positions = positions[order]
    return TopicMatches(corpus.ids[positions], score[positions])


def explain(
    topic: Topic, title: str, summary: str, protected: frozenset[str] = frozenset()
) -> tuple[str, ...]:
    """Why a paper matches a topic: `("title: scaling law", "summary: 缩放定律")`.

    One line per field and term found, title first; empty when it does not
    match. Agrees with `match_topic` (same keys, same misspelling rule).
    """
    found: list[str] = []
    for name, text in (("title", title), ("summary", summary)):
        doc = _document(text)
        words = tuple({w for w in doc.split() if not is_cjk_run(w)})
        for term in _topic_terms(topic):
            if _needle(term.key) in doc:
                found.append(f"{name}: {term.shown}")
                continue
            if topic.is_keyword:
                continue
            typo = next(
                (v for v in _typo_terms(term, words, protected) if _needle(v.key) in doc), None
            )
            if typo is not None:
                found.append(f"{name}: {typo.shown}")
    return tuple(found)


def score_paper(
    topic: Topic, title: str, summary: str, protected: frozenset[str] = frozenset()
) -> float:
    """The `match_topic` score of one paper (0 when it does not match)."""
    corpus = build_corpus([(0, title, summary)])
    matches = match_topic(topic, corpus, protected)
    return float(matches.scores[0]) if len(matches) else 0.0


@dataclass(frozen=True, slots=True)
class Coverage:
    """How the vocabulary covers a corpus."""

    papers: int
    counts: tuple[tuple[Topic, int], ...]
    unmatched_ids: tuple[int, ...]

    @property
    def covered_share(self) -> float:
        return 1.0 - len(self.unmatched_ids) / self.papers if self.papers else 0.0


def coverage(vocabulary: Vocabulary, corpus: TopicCorpus) -> Coverage:
    """Per topic, how many papers match; and which papers match no topic."""
    protected = vocabulary.term_words()
    matched = np.zeros(len(corpus), dtype=bool)
    counts: list[tuple[Topic, int]] = []
    position = {int(pid): i for i, pid in enumerate(corpus.ids.tolist())}
    for topic in vocabulary.topics:
        found = match_topic(topic, corpus, protected)
        counts.append((topic, len(found)))
        matched[[position[int(pid)] for pid in found.ids.tolist()]] = True
    unmatched = tuple(int(pid) for pid in corpus.ids[~matched].tolist())
    return Coverage(len(corpus), tuple(counts), unmatched)
