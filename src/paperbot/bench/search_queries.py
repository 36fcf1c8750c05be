"""`bench search`'s fixed query set, in groups, and its per-group latency figures.

Keyword queries (title words, typos, Chinese words, filters) were the
whole set once; the questions are what users ask (issue 10) and take the
long-query path: more terms, bilingual expansion, the cosine fused with
stage 2 (`core.search._fusion`). A set of only keywords hid that path's
cost, so each group's percentiles are reported beside the whole set's.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

KEYWORD_QUERIES = (
    # English words, phrases, acronyms
    "speculative decoding",
    "scaling laws",
    "data selection for language models",
    "mixture of experts",
    "QLoRA",
    "diffusion language model",
    # typos, run-together and split words
    "shampo optimizer",
    "toolformr",
    "speculativ decodng",
    "quantizaton",
    "refined web",
    # Chinese words and phrases
    "数据去重",
    "权重衰减和批大小",
    "预训练数据",
    "去重",
    "熵",
    "指纹",
    # mixed
    "RoPE 单头",
    "Pre-LN 方差",
    "MoE 路由",
    "LLM 预训练",
    # normalisation and filters
    "ＱＬｏＲＡ",
    "數據混合",
    "NeurIPS 2023 QLoRA",
)
# What users ask (issue 10): questions and paraphrases of 4-12 terms, most
# from the judged sets (`data/judged`), which go through the long-query path
# (bilingual expansion, the cosine fused with stage 2).
QUESTION_QUERIES = (
    # English questions
    "how do I make pretraining data less redundant?",
    "what should I do when I run out of unique training tokens?",
    "how can I fine-tune a 65B model on a single GPU?",
    "how do I choose domain weights for the pretraining data mix?",
    "can I align a language model without training a reward model?",
    "why do transformers fail on inputs longer than they were trained on?",
    "how do I shrink the KV cache during generation?",
    "does removing learning rate decay help later fine-tuning?",
    "how can a small model draft tokens that a large model then verifies?",
    # Chinese questions
    "为什么大模型训练会出现损失尖峰？",
    "如何在预训练中去除重复文档？",
    "怎么用更少的显存微调大模型？",
    "为什么分词器对不同语言不公平？",
    "如何压缩推理时的 KV 缓存？",
    "训练数据重复多次会怎样影响缩放定律？",
    "怎样给大语言模型做结构化剪枝？",
    # paraphrases
    "reweighting sources with a small proxy network so a big network reaches its accuracy"
    " in fewer steps",
    "adapting a huge frozen 4-bit network with small adapters on one graphics card",
    "evicting unimportant cached keys and values while keeping a few high-attention tokens",
    "a chatbot figures out by itself when to call a calculator or search API",
    "what happens when you train for several epochs on the same limited text",
    "a thousand carefully curated examples suffice to make a chat assistant",
    # cross-lingual descriptions
    "rotary embeddings concentrate positional reasoning in a single head in shallow layers",
    "zeroth-order optimization without backpropagation memory",
    "skip mislabeled and duplicated examples to converge faster",
    "三值权重 量化感知训练 蒸馏",
)
QUERIES = KEYWORD_QUERIES + QUESTION_QUERIES
GROUPS: dict[str, tuple[str, ...]] = {"keyword": KEYWORD_QUERIES, "question": QUESTION_QUERIES}


def percentile(values: Sequence[float], pct: int) -> float:
    """The `pct`th percentile (inclusive method; the value itself for one)."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[pct - 1]


def group_figures(
    latencies: Sequence[float],
    queries: Sequence[str] = QUERIES,
    groups: Mapping[str, Sequence[str]] = GROUPS,
    prefix: str = "",
) -> dict[str, float]:
    """`{prefix}{group}_p50_ms` and `_p95_ms` per group: `latencies` are
    passes over `queries` in order (the i-th is `queries[i % len]`)."""
    of = {query: name for name, members in groups.items() for query in members}
    figures: dict[str, float] = {}
    for name in groups:
        mine = [ms for i, ms in enumerate(latencies) if of.get(queries[i % len(queries)]) == name]
        if mine:
            figures[f"{prefix}{name}_p50_ms"] = percentile(mine, 50)
            figures[f"{prefix}{name}_p95_ms"] = percentile(mine, 95)
    return figures
