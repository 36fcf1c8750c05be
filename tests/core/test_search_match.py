"""Stage 2's matching over many candidates at once (`FieldSet`, `NearWords`,
`cjk_strengths`) gives exactly the per-field answers it replaces."""

from __future__ import annotations

import pytest

from paperbot.core.search import (
    FieldSet,
    FieldText,
    NearWords,
    QueryTables,
    cjk_strengths,
    latin_near,
    term_match,
)
from paperbot.core.text import normalize
from tests.support.search import fast_and_plain_scores

TITLES = [
    "qlora: efficient finetuning of quantized llms",
    "scissor hands: exploiting the persistence of importance",
    "property testing of language models",
    "",
    "预训练数据去重 d4",
    "shampoo optimizer at scale",
]
SUMMARIES = [
    "用 4-bit 量化微调 65b 模型，单卡即可。",
    "压缩 kv 缓存，保留重要的 token。",
    "训练数据的重复与去重。",
    "数据",
    "文档去重与多样化提升预训练效率。",
    "预条件优化器 shampoo 的分布式实现。",
]


def _set(texts: list[str]) -> FieldSet:
    return FieldSet([FieldText(t) for t in texts])


@pytest.mark.parametrize(
    ("piece", "holding"),
    [
        ("lora", {0}),
        ("scissorhands", {1}),  # spans two words: found, `has_piece` decides
        ("rope", {2}),  # inside "property": a superset of `has_piece`
        ("llmsscissor", set()),  # never across two fields
        ("zzz", set()),
    ],
)
def test_holding_finds_the_fields_whose_run_together_words_contain_a_piece(
    piece: str, holding: set[int]
) -> None:
    fields = _set(TITLES)
    assert fields.holding(piece) == holding
    assert {i for i, f in enumerate(fields.fields) if f.has_piece(piece)} <= holding


@pytest.mark.parametrize(
    ("texts", "text", "containing"),
    [
        (SUMMARIES, "去重", {2, 4}),
        (SUMMARIES, "数据", {2, 3}),
        (SUMMARIES, "。训练", set()),  # never across two fields
        (TITLES, "d4", {4}),
        (TITLES, "of", {0, 1, 2}),
    ],
)
def test_containing_is_plain_containment(texts: list[str], text: str, containing: set[int]) -> None:
    fields = _set(texts)
    assert fields.containing(text) == containing
    assert containing == {i for i, t in enumerate(texts) if text in t}


@pytest.mark.parametrize(
    ("word", "texts", "found"),
    [
        ("lora", TITLES, True),  # a piece of qlora
        ("quantised", TITLES, True),  # a typo of quantized
        ("shampo", TITLES, True),
        ("optimizr", TITLES, True),
        ("scissorhands", TITLES, True),  # spans "scissor hands"
        ("rope", TITLES, False),  # inside "property": not at a word boundary
        ("llm", TITLES, False),  # too short for a near match
        ("shampo", SUMMARIES, True),
        ("bert", SUMMARIES, False),
    ],
)
def test_near_words_give_latin_near(word: str, texts: list[str], found: bool) -> None:
    fields = _set(texts)
    near = NearWords(word, fields)
    expected = [latin_near(word, f) for f in fields.fields]
    assert [near.strength(i, f) for i, f in enumerate(fields.fields)] == expected
    assert any(expected) == found


@pytest.mark.parametrize(
    ("word", "texts", "found"),
    [
        ("optimizer", ["mosaicbert: optimized for fast pretraining"], False),  # a near word only
        ("lora", TITLES, True),  # a piece is no typo: still found
        ("shampoo", SUMMARIES, True),  # exact
        ("tokenizer", ["learning to tokenize for retrieval"], False),
    ],
)
def test_a_term_without_typos_meets_no_near_word(word: str, texts: list[str], found: bool) -> None:
    """A word the vocabulary names (`Term.typos` False) is spelled right: the
    near words a typo would meet do not count, in any of the three paths."""
    fields = _set(texts)
    near = NearWords(word, fields, typos=False)
    plain = [term_match(word, (f, f), typos=False)[0] for f in fields.fields]
    assert [near.strength(i, f) for i, f in enumerate(fields.fields)] == [
        latin_near(word, f, typos=False) for f in fields.fields
    ]
    assert any(plain) == found
    if not found:  # the same word typed freely is matched as a possible typo
        assert any(term_match(word, (f, f))[0] for f in fields.fields)


@pytest.mark.parametrize(
    "run", ["去重", "预训练数据去重", "数据的重复", "量化微调", "模", "缓存压缩"]
)
def test_cjk_strengths_give_term_match(run: str) -> None:
    titles, summaries = _set(TITLES), _set(SUMMARIES)
    expected = [
        term_match(run, (t, s))[0] for t, s in zip(titles.fields, summaries.fields, strict=True)
    ]
    assert cjk_strengths(run, titles, summaries) == expected
    assert any(expected)


EXPANSIONS = {
    "pretraining": ("预训练",),
    "data": ("数据",),
    "预训练": ("pretraining",),
    "optimizer": ("优化器",),  # an alias: no typo matches (`Term.typos`)
}


@pytest.mark.parametrize(
    "query",
    [
        "how do I make pretraining data less redundant?",
        "adapting a huge frozen 4-bit network with small adapters on one graphics card",
        "如何在预训练中去除重复文档？",
        "怎么用更少的显存微调大模型？",
        "rotary embeddings concentrate positional reasoning in a single head",
        "shampo optimizr for pretraining data",
        "optimizer for pretraining",
    ],
)
def test_long_queries_score_as_rerank_one(query: str) -> None:
    fast, plain = fast_and_plain_scores(normalize(query), QueryTables(EXPANSIONS), candidates=200)
    assert fast == plain
    assert any(fast)
