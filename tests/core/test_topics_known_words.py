"""What users type, read against the shipped vocabulary: a word spelled
right is never taken for a misspelling of a topic's term, a misspelling is
read as the term it misspells, and a text holding a topic's naming term
with words its concept gives as the same idea is that topic."""

from __future__ import annotations

import pytest

from paperbot.config import BUNDLED_TOPICS
from paperbot.core.topics import resolve, term_key
from paperbot.core.topics._keys import needle
from tests.support.topics import shipped_vocabulary

GENERAL_ENGLISH = BUNDLED_TOPICS.parent / "english_frequency.tsv"


@pytest.mark.parametrize(
    ("text", "kind", "key"),
    [
        # Spelled right: a keyword of its own, not the topic a letter away.
        ("大语言模型", "keyword", "大语言模型"),  # not 多语言模型 (multilingual)
        ("batch", "keyword", "batch"),  # not "patch" (vision)
        ("prove", "keyword", "prove"),  # not "probe" (interpretability)
        ("exploration", "keyword", "exploration"),
        ("transition", "keyword", "transition"),  # not "translation"
        ("reference", "keyword", "reference"),  # not "preference"
        ("evolution", "keyword", "evolution"),  # not "evaluation"
        # Misspelled: read as the term meant (a topic, or a keyword within one).
        ("scalng laws", "topic", "scaling-laws"),
        ("scaling lows", "topic", "scaling-laws"),  # a real word, in a misspelt term
        ("tokenizr", "topic", "tokenization"),
        ("attension", "topic", "attention"),
        ("optimiser", "topic", "optimizers"),
        ("Chinchila", "keyword", "chinchilla"),  # as "Chinchilla" is
        # A naming term held with words of the same concept: the topic, as in English.
        ("自监督学习", "topic", "self-supervised"),
        ("self-supervised learning", "topic", "self-supervised"),
        # A concept term that only shares a concept with a topic's term stays itself.
        ("data repetition", "keyword", "data repetition"),
        ("内存高效训练", "keyword", "内存高效训练"),
        # A generic word cut off a Chinese run shortest first, as in English:
        # 视觉语言模型 is 视觉语言 (VLM, of Multimodal), not 视觉 (Vision).
        ("视觉语言模型", "keyword", "vision language"),
        ("多模态大模型", "topic", "multimodal"),
    ],
)
def test_what_users_type(text: str, kind: str, key: str) -> None:
    found = resolve(text, shipped_vocabulary())
    assert (found.kind, found.key) == (kind, key)


def test_a_misspelt_alias_is_shown_spelled_right() -> None:
    assert resolve("Chinchila", shipped_vocabulary()).name == "Chinchilla"


@pytest.mark.parametrize(
    ("texts", "key"),
    [
        # One idea in either language is one subscription (the key), though
        # 训练失稳's concept table holds "training instability" only.
        (("训练失稳", "training instability", "loss spikes", "损失尖峰"), "loss spike"),
        (("激活内存", "activation memory"), "memory efficient"),
        (("视觉语言模型", "VLM", "vision-language model", "视觉语言"), "vision language"),
    ],
)
def test_an_alias_keyword_has_one_key_in_either_language(texts: tuple[str, ...], key: str) -> None:
    assert {resolve(text, shipped_vocabulary()).key for text in texts} == {key}


def test_a_keyword_key_typed_is_the_same_keyword() -> None:
    """Every alias and concept term of the vocabulary that is a keyword: its
    key, typed, resolves to the same key (the key names one subscription)."""
    vocabulary = shipped_vocabulary()
    texts = {term for concept in vocabulary.concepts for term in concept.terms}
    texts.update(term for topic in vocabulary.topics for term in topic.terms)
    moved = []
    for text in sorted(texts):
        found = resolve(text, vocabulary)
        again = resolve(found.key, vocabulary) if found.is_keyword else found
        if (again.kind, again.key) != (found.kind, found.key):
            moved.append((text, found.key, again.key))
    assert moved == []


def _spelled_right() -> list[str]:
    """Every concept term of the vocabulary and every common English word."""
    words = {term for concept in shipped_vocabulary().concepts for term in concept.terms}
    for line in GENERAL_ENGLISH.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            words.add(line.partition("\t")[0])
    return sorted(words)


def test_a_word_spelled_right_reaches_a_topic_only_through_a_term_it_holds() -> None:
    vocabulary = shipped_vocabulary()
    wrong = {}
    for text in _spelled_right():
        try:
            found = resolve(text, vocabulary)
        except ValueError:
            continue  # only common words
        if found.is_keyword:
            continue
        padded = f" {term_key(text)} "
        names = (found.key.replace("-", " "), found.name, found.zh, *found.terms)
        if not any(term_key(n) and needle(term_key(n)) in padded for n in names):
            wrong[text] = found.key
    assert not wrong


def test_autocomplete_offers_first_the_topic_the_text_subscribes_to() -> None:
    """Every vocabulary text and common English word /subscribe reads as a
    topic has that topic as the first autocomplete choice, also when no
    term is near the text as typed (多模态大模型)."""
    from paperbot.core.topics import suggest

    vocabulary = shipped_vocabulary()
    texts = {term for topic in vocabulary.topics for term in topic.terms}
    wrong = {}
    for text in sorted({*texts, *_spelled_right(), "多模态大模型"}):
        try:
            found = resolve(text, vocabulary)
        except ValueError:
            continue
        if found.is_keyword:
            continue
        choices = suggest(text, vocabulary)
        if not choices or choices[0].value != found.key:
            wrong[text] = (found.key, choices[0].value if choices else None)
    assert wrong == {}


def test_autocomplete_finds_no_shorter_term_inside_what_was_typed() -> None:
    from paperbot.core.topics import suggest

    choices = suggest("exploration", shipped_vocabulary())
    assert choices[0].value == "exploration"  # the keyword, not "LoRA" found inside it
    assert not any("(LoRA)" in choice.name for choice in choices)


@pytest.mark.parametrize(
    ("text", "kept_below"), [("大语言模型", "multilingual"), ("batch", "vision")]
)
def test_autocomplete_puts_a_word_spelled_right_before_topics_merely_near_it(
    text: str, kept_below: str
) -> None:
    from paperbot.core.topics import suggest

    values = [choice.value for choice in suggest(text, shipped_vocabulary())]
    assert values.index(text) < values.index(kept_below)


def test_autocomplete_still_offers_the_topic_a_misspelling_means_first() -> None:
    from paperbot.core.topics import suggest

    assert suggest("缩放定率", shipped_vocabulary())[0].value == "scaling-laws"
