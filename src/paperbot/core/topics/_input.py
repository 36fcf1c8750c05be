"""What users type: checking topic text, resolving it, autocomplete choices."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from paperbot.core import limits
from paperbot.core.search import is_common_word, may_be_misspelt
from paperbot.core.text import collapse_whitespace, has_cjk, normalize, strip_invisible
from paperbot.core.topics._bilingual import concept_parts
from paperbot.core.topics._generic import content_readings, names_topic
from paperbot.core.topics._keys import needle, term_key
from paperbot.core.topics._vocabulary import TOPIC_TEXT_MAX, Topic, Vocabulary

EMPTY_TOPIC = "Type a topic, for example “scaling laws” or “缩放定律”."
TOPIC_TOO_LONG = "A topic can be at most {limit} characters; yours has {length}."
NO_LETTERS = "A topic needs at least one letter or Chinese character."
ONLY_COMMON_WORDS = (
    "That topic is only common words (the, of, 的 ...), which every paper says: "
    "name a subject, for example “scaling laws” or “缩放定律”."
)


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


# --------------------------------------------------------------------------
# Resolution


def resolve(text: str, vocabulary: Vocabulary) -> Topic:
    """What the user means: a topic by id or name (or a term of it), a topic
    whose naming term the text holds with words its `[[concept]]` gives as
    the same idea (自监督学习: 自监督), a close misspelling of a term (not of
    a word that is spelled right), a topic its words name once the generic
    words are dropped (`_generic.content_readings`), else a free keyword.
    Raises `TopicInputError` for unusable text.

    Text that is (or, without its generic words, says) an alias of a topic
    but not its name is a keyword (`_alias_keyword`): 思维链 is narrower than
    "Reasoning and chain of thought", and is matched within that topic
    (`_matching`)."""
    cleaned = check_topic_text(text)
    exact = vocabulary.get(cleaned) or vocabulary.lookup(cleaned)
    if exact is not None:
        return _alias_keyword(cleaned, cleaned, exact, vocabulary)
    key = term_key(cleaned)
    if all(is_common_word(word) for word in key.split(" ")):
        raise TopicInputError(ONLY_COMMON_WORDS)
    held = _held_alias(key, vocabulary)
    if held is not None:
        return vocabulary.term_keys[held]
    # A word that is spelled right is no misspelling of another: 大语言模型
    # (large language model) is one character from 多语言模型 (multilingual),
    # "batch" one letter from "patch", "prove" from "probe".
    meant = None if _is_known_word(key, vocabulary) else _closest_term(key, vocabulary)
    if meant is not None:
        # Read as the term it misspells, shown spelled right.
        topic = vocabulary.term_keys[meant]
        spelled = next((t for t in topic.terms if term_key(t) == meant), meant)
        return _alias_keyword(spelled, meant, topic, vocabulary)
    for part in content_readings(key):
        named = vocabulary.lookup(part)
        if named is not None:
            return _alias_keyword(cleaned, part, named, vocabulary)
    return Topic.keyword(cleaned)


def _alias_keyword(text: str, alias: str, topic: Topic, vocabulary: Vocabulary) -> Topic:
    """The topic when `alias` (a term of it that `text` says) names it, else
    a keyword within it, shown as typed but keyed by `_alias_key`: every way
    of saying the part (DPO, 直接偏好优化; "model pruning", 剪枝) is one
    subscription or mute."""
    if names_topic(alias, topic, vocabulary):
        return topic
    return Topic("keyword", _alias_key(alias, topic, vocabulary), collapse_whitespace(text))


def _alias_key(alias: str, topic: Topic, vocabulary: Vocabulary) -> str:
    """The topic's first term that the alias's bilingual concepts hold, read
    again until it keys itself. A term may sit in several `[[concept]]`
    tables, so one step is not enough: 训练失稳's concept holds "training
    instability", whose own concepts also hold "loss spike", the key typing
    "training instability" gets; typing a key gives that key back. A term's
    concepts hold it, so each step moves to an earlier term of the topic."""
    terms = [term_key(t) for t in topic.terms]
    key = term_key(alias)
    seen = {key}
    while True:
        said, _ = concept_parts(key, vocabulary)
        first = next((k for k in terms if k in said), key)
        if first in seen:
            return first
        seen.add(first)
        key = first


def _held_alias(key: str, vocabulary: Vocabulary) -> str | None:
    """A topic term inside `key` that names its topic and that a
    `[[concept]]` table gives as saying all of `key`: 自监督学习 holds 自监督,
    and the concept pairing `self-supervised` with both says they are one
    idea, so the text is the topic, as its English is ("self-supervised
    learning"). First in the vocabulary's order. A concept term that only
    shares a concept with a topic term is not read so ("data repetition" is
    no near-duplicate), nor one holding a narrower alias (内存高效训练 stays
    a keyword matched by its own concept)."""
    padded = f" {key} "
    held = [
        term
        for concept in vocabulary.concept_keys
        for term in concept
        # `in key` first: a cheap test that rules out nearly every term.
        if term != key and term in key and term in vocabulary.term_keys and needle(term) in padded
    ]
    if not held:
        return None  # most text: no need to work out what says all of it
    said, _ = concept_parts(key, vocabulary)
    return next(
        (
            term
            for term in held
            if term in said and names_topic(term, vocabulary.term_keys[term], vocabulary)
        ),
        None,
    )


def _is_known_word(key: str, vocabulary: Vocabulary) -> bool:
    """A term of a `[[concept]]` table, or one English word that general
    English or the English-Chinese dictionary has. (Text of several words
    is checked as a term only: "scaling lows" is a misspelling of a term.)"""
    if any(key in concept for concept in vocabulary.concept_keys):
        return True
    if " " in key or has_cjk(key):
        return False
    return not may_be_misspelt(key)


def _fuzzy_budget(key: str) -> int:
    """Edits allowed between a typed key and a term key of the vocabulary."""
    if len(key) >= 9:
        return 2
    return 1 if len(key) >= 5 else 0


def _closest_term(key: str, vocabulary: Vocabulary) -> str | None:
    """The term key `key` misspells, if any, within `_fuzzy_budget` edits."""
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
    term: str = found[0]
    return term


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


_STRONG = 80.0
"""Topic suggestions scoring at least this go before the keyword choice."""
_FUZZY_CUTOFF = 75.0
_FUZZY_MIN_QUERY = 4
"""Shorter queries are ranked by prefix and substring only."""

_Ranked = tuple[float, Topic, str | None]
"""(score 0-100, topic, alias that matched if not a name)."""


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
    typed = _resolved(text, vocabulary)
    if typed is not None and not typed.is_keyword:
        # What /subscribe reads the text as comes first, even when no term
        # is near the text as typed (多模态大模型 is Multimodal pretraining).
        held = [c for c in choices if c.value == typed.key] or [_topic_choice(typed, None)]
        choices = [*held, *(c for c in choices if c.value != typed.key)]
    elif typed is not None:
        strong = sum(1 for score, _, _ in scored if score >= _STRONG)
        choices.insert(min(strong, limit - 1), Choice(clip(typed.label), typed.name))
    return choices[:limit]


def _rank_topics(query: str, vocabulary: Vocabulary) -> list[_Ranked]:
    """Every topic with a term matching the query, by its best term, best first."""
    best: dict[str, _Ranked] = {}
    fuzzy = _fuzzy_scores(query, vocabulary)
    for index, (surface, topic, term) in enumerate(vocabulary.surfaces):
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


def _fuzzy_scores(query: str, vocabulary: Vocabulary) -> dict[int, float]:
    """Index into `vocabulary.surfaces` -> fuzzy score, for terms close to the query.
    A query that is a word spelled right (`_is_known_word`: 大语言模型) is no
    misspelling, so its near terms stay below the keyword choice."""
    if len(query) < _FUZZY_MIN_QUERY:
        return {}
    # Below `_STRONG` with a name's tie bonus (+1) too.
    ceiling = _STRONG - 2.0 if _is_known_word(term_key(query), vocabulary) else 100.0
    surfaces = [s for s, _, _ in vocabulary.surfaces]
    # The query may be the start or a misspelt part of a longer term (typing
    # goes on), but a shorter term is no part of what was typed: "LoRA"
    # inside "exploration" suggests nothing, so such a term is compared whole.
    longer = {i: s for i, s in enumerate(surfaces) if len(s) >= len(query)}
    shorter = {i: s for i, s in enumerate(surfaces) if len(s) < len(query)}
    found = [
        *process.extract(
            query, longer, scorer=fuzz.partial_ratio, score_cutoff=_FUZZY_CUTOFF, limit=None
        ),
        *process.extract(query, shorter, scorer=fuzz.ratio, score_cutoff=_FUZZY_CUTOFF, limit=None),
    ]
    return {index: min(0.95 * score, ceiling) for _, score, index in found}


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


def _resolved(text: str, vocabulary: Vocabulary) -> Topic | None:
    """What /subscribe would follow for the text, or None for unusable text."""
    try:
        return resolve(text, vocabulary)
    except TopicInputError:
        return None
