"""Generic words: what a typed keyword says once the words every paper of
an ML corpus could carry are set aside ("model pruning" says pruning, "LLM
safety" safety, 大模型剪枝 剪枝).

`resolve` reads such a keyword as the vocabulary topic its other words name
(`content_readings`); a keyword that stays a keyword is also said without its
generic words, as supporting evidence only (`keyword_terms`).
"""

from __future__ import annotations

from paperbot.core.text import is_cjk_run
from paperbot.core.topics._bilingual import (
    EXPANSION_WEIGHT,
    PARTIAL_EXPANSION_FACTOR,
    concept_parts,
    expand_bilingual,
)
from paperbot.core.topics._keys import needle, term_key
from paperbot.core.topics._vocabulary import Topic, Vocabulary

GENERIC_WORDS = frozenset(
    term_key(word)
    for word in (
        "model",
        "large",
        "language",
        "learning",
        "neural",
        "network",
        "deep",
        "machine",
        "LLM",
        "LM",
        "transformer",
        "AI",
        "大模型",
        "模型",
        "语言模型",
        "大语言模型",
        "神经网络",
        "深度学习",
    )
)
"""Words nearly every paper of an ML corpus could carry (the most frequent
content words of the shipped titles, and their Chinese): in a typed keyword
they only say the field. "model pruning" means pruning, "LLM safety" safety."""


CONTENT_QUALITY = EXPANSION_WEIGHT * PARTIAL_EXPANSION_FACTOR
"""A keyword said without its generic words counts as a partial bilingual
expansion does: supporting evidence (a title hit stays below the threshold)."""


def keyword_terms(name: str, vocabulary: Vocabulary | None) -> list[tuple[str, float]]:
    """A keyword's term keys with weights: the keyword (1.0) with its bilingual
    expansions, and, as supporting evidence only, the keyword without its
    generic words (`content_key`: "LLM galore" is said as "galore"; but "model
    compression" is not every paper about audio compression, so such a term
    never makes a match alone, `CONTENT_QUALITY`)."""
    key = term_key(name)
    content = content_key(key)
    readings = [(name, 1.0)]
    if content != key:
        readings.append((content, CONTENT_QUALITY))
    found: dict[str, float] = {}
    for text, quality in readings:
        expanded = (
            [(term_key(text), 1.0)] if vocabulary is None else expand_bilingual(text, vocabulary)
        )
        for term, weight in expanded:
            if term and found.get(term, 0.0) < weight * quality:
                found[term] = weight * quality
    return list(found.items())


def alias_reading(key: str, vocabulary: Vocabulary | None) -> str | None:
    """The reading of a keyword's key that is a term of the vocabulary (the
    key itself, else its first `content_readings`), or None: a keyword that
    `resolve` left a keyword although it says an alias of a topic."""
    if vocabulary is None:
        return None
    for part in (key, *content_readings(key)):
        if vocabulary.lookup(part) is not None:
            return part
    return None


def names_topic(text: str, topic: Topic, vocabulary: Vocabulary) -> bool:
    """Whether `text` (a term of `topic`) names the topic itself: its id,
    name or Chinese name, or a term whose bilingual concept holds one of
    those. Any other alias names something narrower (思维链, not the whole
    of "Reasoning and chain of thought"), so does one whose part alone is a
    name ("flash attention" is not all of Attention)."""
    names = {term_key(n) for n in (topic.key.replace("-", " "), topic.name, topic.zh)}
    said, _ = concept_parts(text, vocabulary)
    return not said.isdisjoint(names)


def named_within(keyword: Topic, vocabulary: Vocabulary) -> tuple[Topic, ...]:
    """The vocabulary topics a keyword names a part of: one of their terms
    (weak ones too, not a generic word) is a word or a Chinese piece of the
    keyword but not all of it. "quantization-aware training" and 量化感知训练
    name Quantization, 越狱攻击 Safety: a kind of the topic's subject, so its
    papers are close to the keyword (near, never matches: "model
    compression" is not every paper about audio compression)."""
    if not keyword.is_keyword:
        return ()
    padded = f" {keyword.key} "
    return tuple(
        topic
        for topic in vocabulary.topics
        if any(
            key != keyword.key and key not in GENERIC_WORDS and needle(key) in padded
            for key in map(term_key, topic.terms)
            if key
        )
    )


def content_readings(key: str) -> list[str]:
    """The key's shorter readings, longest first: generic words trimmed off
    its ends ("vision language model" is "vision language" before it is
    "vision"; 视觉语言模型 视觉语言 before 视觉), then every generic word
    dropped (`content_key`)."""
    trimmed = _cjk_trims(key)
    words = _split_generic(key)
    ends = [
        " ".join(words[start:stop])
        for start in range(len(words))
        for stop in range(len(words), start, -1)
        if (start, stop) != (0, len(words))
        and all(w in GENERIC_WORDS for w in (*words[:start], *words[stop:]))
        and any(w not in GENERIC_WORDS for w in words[start:stop])
    ]
    ends.sort(key=lambda part: -len(part.split(" ")))
    content = content_key(key)
    return list(dict.fromkeys([*trimmed, *ends, content] if content != key else [*trimmed, *ends]))


def _cjk_trims(key: str) -> list[str]:
    """A one-run Chinese key with each generic word it ends (or starts) with
    cut off, the shortest cut first: 视觉语言模型 is 视觉语言 (模型 cut)
    before `_split_generic`'s longest cut leaves 视觉 (语言模型 cut), as the
    English reading drops "model" before "language model"."""
    if " " in key or not is_cjk_run(key):
        return []
    cuts = [key[: -len(g)] for g in reversed(_generic_edges(key, at_start=False))]
    return cuts + [key[len(g) :] for g in reversed(_generic_edges(key, at_start=True))]


def content_key(key: str) -> str:
    """A term key without its generic words (`GENERIC_WORDS`, also at either
    end of a Chinese run: 大模型剪枝 is 剪枝); the key itself when it is all
    generic words or has none."""
    words = _split_generic(key)
    content = [word for word in words if word not in GENERIC_WORDS]
    return " ".join(content) if content and len(content) < len(words) else key


def _split_generic(key: str) -> list[str]:
    """The key's words, a Chinese run split where a generic word begins or
    ends it (leaving at least `_MIN_CJK_REST` characters)."""
    words: list[str] = []
    for word in key.split(" "):
        if not is_cjk_run(word) or word in GENERIC_WORDS:
            words.append(word)
            continue
        head = _generic_edge(word, at_start=True)
        rest = word[len(head) :]
        tail = _generic_edge(rest, at_start=False)
        rest = rest[: len(rest) - len(tail)]
        words.extend(w for w in (head, rest, tail) if w)
    return words


_CJK_GENERIC = sorted((w for w in GENERIC_WORDS if is_cjk_run(w)), key=len, reverse=True)
_MIN_CJK_REST = 2


def _generic_edge(run: str, *, at_start: bool) -> str:
    """The longest generic word the run starts (or ends) with, leaving enough."""
    return next(iter(_generic_edges(run, at_start=at_start)), "")


def _generic_edges(run: str, *, at_start: bool) -> list[str]:
    """Every generic word the run starts (or ends) with, leaving at least
    `_MIN_CJK_REST` characters, longest first."""
    return [
        generic
        for generic in _CJK_GENERIC
        if (run.startswith(generic) if at_start else run.endswith(generic))
        and len(run) - len(generic) >= _MIN_CJK_REST
    ]
