"""A keyword that is an alias of a topic but not its name (思维链 of "Reasoning
and chain of thought") is narrower than the topic: it is matched with the
topic's terms, but only a paper that says the alias's own concept can match
by its words."""

from __future__ import annotations

import pytest

from paperbot.core.topics import (
    Vocabulary,
    build_corpus,
    explain,
    match_topic,
    parse_vocabulary,
    resolve,
)

SMALL = """
[[topic]]
id = "reasoning"
name = "Reasoning and chain of thought"
zh = "推理与思维链"
aliases = ["chain of thought", "思维链", "组合泛化"]
weak_aliases = ["reasoning"]

[[topic]]
id = "decoding"
name = "Decoding and text generation"
zh = "解码与文本生成"
aliases = ["constrained decoding", "约束解码", "speculative decoding"]
weak_aliases = ["decoding", "解码"]

[[topic]]
id = "speech-audio"
name = "Speech and audio"
zh = "语音与音频"
aliases = ["speech", "语音识别", "audio"]

[[topic]]
id = "mixture-of-experts"
name = "Mixture of experts"
zh = "混合专家"
aliases = ["MoE"]

[[topic]]
id = "pruning-sparsity"
name = "Pruning and sparsity"
zh = "剪枝与稀疏"
aliases = ["pruning", "剪枝"]
weak_aliases = ["sparse"]

[[topic]]
id = "evaluation-benchmarks"
name = "Evaluation and benchmarks"
zh = "评测与基准"
aliases = ["leaderboard"]
weak_aliases = ["evaluation", "benchmark"]

[[topic]]
id = "optimizers"
name = "Optimizers"
zh = "优化器"
aliases = ["optimization algorithm"]
weak_aliases = ["AdamW", "momentum"]

[[concept]]
en = ["chain of thought"]
zh = ["思维链"]

[[concept]]
en = ["pruning"]
zh = ["剪枝"]

[[concept]]
en = ["MoE", "mixture of experts"]
zh = ["混合专家"]

[[concept]]
en = ["decoding"]
zh = ["解码"]

[[concept]]
en = ["constrained", "constraint"]
zh = ["约束"]

[[concept]]
en = ["speech"]
zh = ["语音"]

[[concept]]
en = ["speech recognition", "ASR"]
zh = ["语音识别"]
"""

PAPERS = [
    (1, "Chain of thought prompting", "思维链让模型逐步推理。"),
    (2, "Compositional generalization limits", "研究组合泛化与推理。"),
    (3, "Reasoning benchmarks", "本文用思维链评估推理能力。"),
    (4, "Sparse attention kernels", "稀疏注意力加速。"),
    (5, "Pruning large models", "对模型做结构化剪枝。"),
    (6, "Scaling mixture of experts", "混合专家模型的路由。"),
    (7, "Evaluation of neuron explanations", "比较神经元解释方法。"),
    (8, "Evaluation on a new benchmark", "chat arena votes 排行榜 聊天模型。"),
    (9, "A leaderboard for chat models", "evaluation by chat arena votes 聊天模型。"),
    (10, "Speculative decoding with a draft model", "用草稿模型加速解码。"),
    (11, "Grammar-constrained decoding", "在解码时用文法约束输出。"),
    (12, "Decoding with static analysis", "用静态分析做约束解码。"),
    (13, "Power laws for weight decay", "用 AdamW 的时间尺度统一权重衰减与批大小的缩放规律。"),
]


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return parse_vocabulary(SMALL)


@pytest.mark.parametrize(
    ("text", "kind", "key"),
    [
        # An alias, narrower than the topic; keyed by the topic's first term
        # its concept holds, so both languages are one subscription.
        ("思维链", "keyword", "chain of thought"),
        ("chain of thought", "keyword", "chain of thought"),
        ("组合泛化", "keyword", "组合泛化"),
        ("reasoning", "topic", "reasoning"),  # its id
        ("model pruning", "keyword", "pruning"),  # says the alias pruning
        ("剪枝", "keyword", "pruning"),
        ("Reasoning and chain of thought", "topic", "reasoning"),  # the name
        ("推理与思维链", "topic", "reasoning"),  # the Chinese name
        ("pruning sparsity", "topic", "pruning-sparsity"),  # the id
        ("MoE", "topic", "mixture-of-experts"),  # its concept holds the name
        # Keyed by a term that says all of it, never one that says a part
        # (语音 is speech, not speech recognition).
        ("语音识别", "keyword", "语音识别"),
        ("约束解码", "keyword", "约束解码"),
    ],
)
def test_an_alias_that_does_not_name_its_topic_is_a_keyword(
    vocab: Vocabulary, text: str, kind: str, key: str
) -> None:
    found = resolve(text, vocab)
    assert (found.kind, found.key) == (kind, key)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("思维链", [1, 3]),  # not the compositional paper (2), which the topic matches
        ("Reasoning and chain of thought", [1, 2, 3]),
        ("chain of thought", [1, 3]),  # the concept's other language counts
        ("model pruning", [5]),  # not the sparse-attention paper
        ("剪枝", [5]),
        # A weak alias alone in a summary is a passing mention of its topic
        # (13 for Optimizers), but not of itself: the keyword's own terms
        # are what the reader typed, and count wherever they are said.
        ("AdamW", [13]),
        ("Optimizers", []),
        ("LLM evaluation", [7, 8, 9]),  # "evaluation", alone in 7's title
        ("Evaluation and benchmarks", [3, 7, 8, 9]),
    ],
)
def test_an_alias_keyword_matches_within_its_concept(
    vocab: Vocabulary, text: str, expected: list[int]
) -> None:
    corpus = build_corpus(PAPERS)
    found = match_topic(resolve(text, vocab), corpus, vocab.term_words(), vocab)
    assert sorted(found.ids.tolist()) == expected


@pytest.mark.parametrize(
    ("text", "paper", "said"),
    [
        # A compound alias is said by every part's concept together (11, 12),
        # never by one part: a speculative-decoding paper says only 解码.
        ("约束解码", 10, False),
        ("约束解码", 11, True),
        ("约束解码", 12, True),
        ("constrained decoding", 10, False),
        ("constrained decoding", 11, True),
        ("思维链", 2, False),
        ("思维链", 3, True),
    ],
)
def test_only_a_paper_saying_the_whole_alias_matches_by_its_words(
    vocab: Vocabulary, text: str, paper: int, said: bool
) -> None:
    _, title, summary = next(p for p in PAPERS if p[0] == paper)
    reasons = explain(resolve(text, vocab), title, summary, vocab.term_words(), vocab)
    assert bool(reasons) is said


SPEECH_PAPERS = [
    (20, "Speech recognition at scale", "语音识别模型在大规模弱监督数据上训练，声学建模更稳健。"),
    (21, "Robust speech recognition", "语音识别：大规模弱监督数据让声学建模更稳健。"),
    (22, "Zero-shot speech synthesis", "在大规模弱监督数据上训练声学建模，合成 audio。"),
    (23, "Scaling laws for tokenizers", "分词器的缩放定律。"),
    (24, "Optimizers for pretraining", "预训练中的优化器比较。"),
]


def test_the_feedback_accepts_no_paper_a_keyword_within_a_topic_does_not_say(
    vocab: Vocabulary,
) -> None:
    """The profile of a narrow keyword's few clear matches is mostly its
    topic's: a speech-synthesis paper close to the speech-recognition papers
    stays near for 语音识别, while the whole topic matches it by its words."""
    corpus = build_corpus(SPEECH_PAPERS)
    keyword = match_topic(resolve("语音识别", vocab), corpus, vocab.term_words(), vocab)
    assert sorted(keyword.ids.tolist()) == [20, 21]
    assert 22 in keyword.near_ids.tolist()
    topic = match_topic(resolve("Speech and audio", vocab), corpus, vocab.term_words(), vocab)
    assert 22 in topic.ids.tolist()
