"""Aliases of one topic that translate each other are one keyword: typed in
either language they resolve to the same key and match the same papers
(`[[concept]]` tables pair them in the shipped vocabulary)."""

from __future__ import annotations

import pytest

from paperbot.config import BUNDLED_TOPICS
from paperbot.core.topics import Vocabulary, parse_vocabulary, resolve, term_key
from paperbot.core.topics._keys import needle
from tests.support.topics import shipped_vocabulary


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        ("linear attention", "线性注意力"),
        ("knowledge editing", "知识编辑"),
        ("speech recognition", "语音识别"),
        ("text-to-speech", "语音合成"),
        ("length generalization", "长度外推"),
        ("context extension", "上下文扩展"),
        ("web data", "网页数据"),
        ("weight decay", "权重衰减"),
        ("reward model", "奖励模型"),
        ("catastrophic forgetting", "灾难性遗忘"),
        ("tool use", "工具调用"),
        ("LoRA", "低秩适配"),
    ],
)
def test_an_alias_and_its_translation_are_one_keyword(english: str, chinese: str) -> None:
    vocabulary = shipped_vocabulary()
    one, other = resolve(english, vocabulary), resolve(chinese, vocabulary)
    assert (one.kind, one.key) == (other.kind, other.key)


@pytest.mark.parametrize(
    ("alias", "topic"),
    [
        # Naming the topic (its name, or its name's translation) ...
        ("去重复", "deduplication"),
        ("持续学习", "continual-learning"),
        # ... but a part of it alone is not the topic: "flash attention" is
        # narrower than Attention mechanisms.
        ("flash attention", None),
        ("稀疏注意力", None),
    ],
)
def test_an_alias_names_its_topic_only_by_all_of_it(alias: str, topic: str | None) -> None:
    found = resolve(alias, shipped_vocabulary())
    assert (found.key if found.kind == "topic" else None) == topic


# Concept terms that say more (or other) than the topic whose alias shares
# their [[concept]] table, decided by meaning: a concept pairs the ways of
# saying one word, and some of those are broader than the topic's sense.
_NOT_THE_TOPIC = {
    # Curriculum learning orders examples, not only data sources (课程学习 is
    # a weak alias); 课程 alone is also "course".
    "curriculum": "data-mixture-selection",
    "课程": "data-mixture-selection",
    # Any decline of quality, not the degeneration of generated text.
    "degradation": "decoding-generation",
    "degenerate": "decoding-generation",
    "退化": "decoding-generation",
    # Repeating data (multi-epoch training) is not removing duplicates.
    "repetition": "deduplication",
    "repeated data": "deduplication",
    "data repetition": "deduplication",
    "repeated": "deduplication",
    "multi epoch": "deduplication",
    "multiple epoch": "deduplication",
    "duplicate": "deduplication",
    "数据重复": "deduplication",
    "重复训练": "deduplication",
    "重复次数": "deduplication",
    "重复 token": "deduplication",
    "多轮训练": "deduplication",
    # Memory and parallel work in general, inference included.
    "memory saving": "efficient-training",
    "memory footprint": "efficient-training",
    "parallel": "efficient-training",
    # Parts of 数据污染 and 基准测试 that say more: pollution, a baseline.
    "污染": "evaluation-benchmarks",
    "基准": "evaluation-benchmarks",
    # Linear algebra many topics use; LoRA is the fine-tuning method.
    "low rank": "fine-tuning-peft training-dynamics",
    "svd": "fine-tuning-peft training-dynamics",
    "singular value decomposition": "fine-tuning-peft training-dynamics",
    "rank sparse": "fine-tuning-peft training-dynamics",
    "低秩": "fine-tuning-peft training-dynamics",
    "秩": "fine-tuning-peft training-dynamics",
    "奇异值分解": "fine-tuning-peft training-dynamics",
    "奇异值": "fine-tuning-peft training-dynamics",
    # An interpretable model is not a study of a network's mechanisms.
    "interpretable": "mechanistic-interpretability",
    # Memory in general (of an agent, of hardware).
    "记忆": "memorization-attribution",
    # Forward-only inference is no optimizer.
    "forward pass only": "optimizers",
    "仅前向": "optimizers",
}


def _unclaimed_translations(vocabulary: Vocabulary) -> dict[str, set[str]]:
    """Per concept term that no topic holds and that holds no term of the
    topic (视觉语言模型 holds Multimodal's 视觉语言, so its papers match already;
    前馈网络 holds none of Architecture's terms), the topics whose strong
    alias shares a [[concept]] table with it."""
    owned = {term_key(term) for topic in vocabulary.topics for term in topic.terms}
    unclaimed: dict[str, set[str]] = {}
    for topic in vocabulary.topics:
        keys = {term_key(term) for term in topic.terms}
        strong = {term_key(term) for term in topic.terms if term not in topic.weak_aliases}
        for concept in vocabulary.concept_keys:
            if strong.isdisjoint(concept):
                continue
            for key in concept:
                if key not in owned and not any(needle(k) in f" {key} " for k in keys):
                    unclaimed.setdefault(key, set()).add(topic.key)
    return unclaimed


def test_a_strong_alias_translation_is_a_term_of_its_topic() -> None:
    """What a [[concept]] pairs with a topic's strong alias says the topic in
    the other language (量化 quantization, 字节对编码 BPE, 训练顺序 data ordering),
    so the topic holds it (weak where the word is ambiguous: 量化 also means
    "to quantify"), unless `_NOT_THE_TOPIC` records why it is broader."""
    unclaimed = {
        key: " ".join(sorted(topics))
        for key, topics in _unclaimed_translations(shipped_vocabulary()).items()
    }
    assert unclaimed == _NOT_THE_TOPIC


def test_the_translation_check_finds_a_missing_translation() -> None:
    text = BUNDLED_TOPICS.read_text(encoding="utf-8").replace(', "字节对编码"', "", 1)
    unclaimed = _unclaimed_translations(parse_vocabulary(text))
    assert unclaimed["字节对编码"] == {"tokenization"}
