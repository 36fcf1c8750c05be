"""Aliases of one topic that translate each other are one keyword: typed in
either language they resolve to the same key and match the same papers
(`[[concept]]` tables pair them in the shipped vocabulary)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from paperbot.core.topics import Vocabulary, parse_vocabulary, resolve

SHIPPED = Path(__file__).parents[2] / "src" / "paperbot" / "data" / "topics.toml"


@cache
def _shipped() -> Vocabulary:
    return parse_vocabulary(SHIPPED.read_text(encoding="utf-8"))


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
    vocabulary = _shipped()
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
    found = resolve(alias, _shipped())
    assert (found.key if found.kind == "topic" else None) == topic
