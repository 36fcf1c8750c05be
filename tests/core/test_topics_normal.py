"""A topic corpus built from texts already in normal form (the load shares
them with the search index) equals one built from the raw texts, postings
and all; vectorised CJK postings included."""

from __future__ import annotations

import pytest

from paperbot.core.text import normalize
from paperbot.core.topics import build_corpus
from tests.support.topics import assert_same_corpus

PAPERS = [
    (3, "Scaling Laws for Neural Language Models", "我们研究缩放定律，數據混合与去重。"),
    (5, "QLoRA: Efficient Finetuning", "ＱＬｏＲＡ 在单卡上微调 65B 模型；低秩适配。"),
    (8, "Mixture-of-Experts Routing", "MoE 路由，专家负载均衡，路由器 z-loss。"),
    (9, "", ""),
    (12, "数据去重 Deduplication", "重复数据会损害模型 performance，去重有帮助。"),
]


@pytest.mark.parametrize("count", [0, 1, 2, len(PAPERS)])
def test_normal_texts_build_the_same_corpus(count: int) -> None:
    papers = PAPERS[:count]
    normal = [(i, normalize(t), normalize(s)) for i, t, s in papers]
    assert_same_corpus(build_corpus(normal, normal=True), build_corpus(papers))


@pytest.mark.parametrize(
    ("char", "positions"),
    [("据", [0, 4]), ("路", [2]), ("适", [1]), ("重", [0, 4])],
)
def test_char_postings_list_each_paper_once_in_order(char: str, positions: list[int]) -> None:
    corpus = build_corpus(PAPERS)
    assert corpus.summary.char_postings[char].tolist() == positions
