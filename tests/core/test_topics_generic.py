"""A typed keyword without the field's generic words (model, LLM, 大模型...):
read as the topic the rest names, else the rest is supporting evidence."""

from __future__ import annotations

import pytest

from paperbot.core.topics import (
    Topic,
    Vocabulary,
    build_corpus,
    match_topic,
    named_within,
    parse_vocabulary,
    resolve,
)

SMALL = """
[[topic]]
id = "scaling-laws"
name = "Scaling laws"
zh = "缩放定律"

[[topic]]
id = "quantization"
name = "Quantization"
zh = "量化"

[[topic]]
id = "speculative-decoding"
name = "Speculative decoding"
zh = "推测解码"
aliases = ["draft model"]

[[topic]]
id = "multimodal"
name = "Multimodal pretraining"
zh = "多模态预训练"
aliases = ["vision-language"]

[[topic]]
id = "vision"
name = "Vision models"
zh = "视觉模型"
aliases = ["vision"]

[[topic]]
id = "safety"
name = "Safety"
zh = "安全"
weak_aliases = ["jailbreak", "越狱", "model"]
"""


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return parse_vocabulary(SMALL)


@pytest.mark.parametrize(
    ("text", "kind", "key"),
    [
        ("LLM quantization", "topic", "quantization"),
        ("LLM 量化", "topic", "quantization"),
        ("large language model scaling laws", "topic", "scaling-laws"),
        # An alias, not the name: a keyword matched within its topic.
        ("LLM draft model", "keyword", "draft model"),
        ("vision language model", "keyword", "vision language"),
        ("大模型量化", "topic", "quantization"),  # a generic word beginning a Chinese run
        ("量化模型", "topic", "quantization"),  # ... or ending it
        ("deep learning", "keyword", "deep learning"),  # all generic: kept whole
        ("大语言模型", "keyword", "大语言模型"),
        ("LLM galore", "keyword", "llm galore"),  # the rest names no topic
        ("quantization", "topic", "quantization"),  # a name stays a name
    ],
)
def test_resolve_without_generic_words(vocab: Vocabulary, text: str, kind: str, key: str) -> None:
    found = resolve(text, vocab)
    assert (found.kind, found.key) == (kind, key)


@pytest.mark.parametrize(
    ("keyword", "title", "place"),
    [
        ("LLM galore", "GaLore: Memory-Efficient Training", "near"),
        ("large language model galore", "GaLore Training", "near"),
        # "model compression" is not every paper about audio compression.
        ("model compression", "High-Fidelity Audio Compression", "near"),
        ("LLM galore", "LLM GaLore Tricks", "match"),  # the whole keyword
        ("galore optimizer", "GaLore: Memory-Efficient Training", "none"),  # none generic
        ("deep learning", "Learning at Scale", "none"),  # all generic: said whole
    ],
)
def test_keyword_without_generic_words(keyword: str, title: str, place: str) -> None:
    found = match_topic(Topic.keyword(keyword), build_corpus([(7, title, "")]))
    assert (7 in found.ids, 7 in found.near_ids) == (place == "match", place == "near")


@pytest.mark.parametrize(
    ("keyword", "named"),
    [
        ("quantization-aware training", ("quantization",)),  # a word of it
        ("量化感知训练", ("quantization",)),  # a Chinese piece of it
        ("越狱攻击", ("safety",)),  # a weak alias counts: it is part of a narrower idea
        ("jailbreak vision prompts", ("vision", "safety")),  # every topic named
        ("visionary ideas", ()),  # whole words only in English
        ("model editing", ()),  # a generic word names nothing, even as an alias
        ("galore", ()),
    ],
)
def test_named_within(vocab: Vocabulary, keyword: str, named: tuple[str, ...]) -> None:
    found = named_within(Topic.keyword(keyword), vocab)
    assert {t.key for t in found} == set(named)


def test_a_vocabulary_topic_names_no_other(vocab: Vocabulary) -> None:
    topic = vocab.get("multimodal")
    assert topic is not None
    assert named_within(topic, vocab) == ()
