"""Search that understands questions (issue 10 part 4): question and
generic words weigh little, lower-case and hyphenated acronyms, bilingual
concept expansion, the partial-coverage fallback."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from paperbot.core.search import (
    ALTERNATIVE,
    LONG_QUERY_ALTERNATIVE,
    SearchIndex,
    Term,
    bilingual_table,
    parse_query,
    rank,
    term_weight,
    title_acronyms,
)
from tests.support.search import index_of, real_index, shipped_table, title_of

# (title, summary): the filler papers make "model" and "language" common.
PAPERS = [
    ("Efficient KV Cache Compression for Long Generation", "压缩 KV 缓存以节省显存。"),
    ("How Do Language Models Learn Facts", "研究语言模型如何记住事实。"),
    ("Why Language Models Hallucinate", "分析幻觉的来源。"),
    ("Massive Multitask Language Understanding", "一个多任务评测基准。"),
    ("Low-Rank Adaptation of Large Language Models", "用低秩矩阵微调大模型。"),
    ("Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks", "检索增强生成。"),
    ("Scaling Language Model Pretraining", "关于预训练的缩放研究。"),
    ("A Model of Speculative Decoding", "推测解码加速推理。"),
    ("Language Model Alignment Survey", "对齐方法综述，训练不稳定的原因。"),
    ("Grokking Beyond Overfitting", "模型在过拟合之后突然泛化。"),
]


def make_index(papers: Sequence[tuple[str, str]] = PAPERS) -> SearchIndex:
    return index_of(papers)


def top(query: str, expansions: Mapping[str, Sequence[str]] | None = None) -> list[int]:
    return list(rank(make_index(), parse_query(query, expansions=expansions)).ids)


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ("how do I shrink the kv cache?", ("shrink", "kv", "cache")),
        ("why does grokking happen", ("grokking", "happen")),
        ("what", ("what",)),  # nothing else: the question word stays
        ("为什么训练不稳定", ("训练不稳定",)),
        ("如何做推测解码", ("做推测解码",)),
        ("为什么", ("为什么",)),
        # Asking for advice: the frame goes, the topic stays.
        ("有什么好办法让训练更稳定", ("训练更稳定",)),
        ("有哪些合适的数据", ("数据",)),
        ("哪种方法最好", ("方法",)),
        ("能不能压缩缓存", ("压缩缓存",)),
    ],
)
def test_question_words_leave_the_query(query: str, terms: tuple[str, ...]) -> None:
    assert tuple(t.text for t in parse_query(query).terms) == terms


@pytest.mark.parametrize(
    ("generic", "content"),
    [
        ("model", "grokking"),
        ("方法", "grokking"),
        ("how", "cache"),
        # Inflections of generic words are as generic ("what makes ...").
        ("makes", "grokking"),
        ("works", "cache"),
        ("gets", "cache"),
    ],
)
def test_generic_words_weigh_less_than_content_words(generic: str, content: str) -> None:
    # Same IDF: only the word's kind differs.
    assert term_weight(Term(generic), 4.0) < term_weight(Term(content), 4.0) / 4


@pytest.mark.parametrize(("low_idf", "high_idf"), [(0.5, 3.0), (1.0, 2.0), (2.9, 5.0)])
def test_common_terms_weigh_less_than_their_idf_says(low_idf: float, high_idf: float) -> None:
    ratio = term_weight(Term("x1"), high_idf) / term_weight(Term("x1"), low_idf)
    assert ratio > high_idf / low_idf


@pytest.mark.parametrize(
    ("query", "expected_first"),
    [
        ("how do language models make the kv cache smaller?", 1),
        ("why do models suddenly generalize after grokking?", 10),
        ("what is speculative decoding?", 8),
    ],
)
def test_questions_are_ranked_by_their_content_words(query: str, expected_first: int) -> None:
    assert top(query)[0] == expected_first


@pytest.mark.parametrize(
    ("title", "acronym"),
    [
        ("Massive Multitask Language Understanding", "mmlu"),
        ("Low-Rank Adaptation of Large Language Models", "lra"),
        ("Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks", "rag"),
        ("Direct Preference Optimization: Your Language Model", "dpo"),
    ],
)
def test_title_acronyms_split_hyphenated_words(title: str, acronym: str) -> None:
    assert acronym in title_acronyms(title)


@pytest.mark.parametrize(("query", "expected_first"), [("mmlu", 4), ("MMLU", 4), ("rag", 6)])
def test_lower_case_acronym_finds_its_title(query: str, expected_first: int) -> None:
    assert top(query)[0] == expected_first


CONCEPTS = [(("low-rank", "lora"), ("低秩", "秩")), (("instability",), ("训练不稳定",))]


@pytest.mark.parametrize(
    ("key", "aliases"),
    [
        ("low-rank", ("低秩",)),
        ("低秩", ("low-rank", "lora")),
        ("lora", ("低秩", "秩")),
        ("训练不稳定", ("instability",)),
        ("moe", ("混合专家",)),  # topic aliases kept, first
    ],
)
def test_bilingual_table_pairs_the_languages(key: str, aliases: tuple[str, ...]) -> None:
    table = bilingual_table({"moe": ("混合专家",)}, CONCEPTS)
    assert table[key][: len(aliases)] == aliases
    assert "秩" not in table  # one CJK character is no key


@pytest.mark.parametrize(
    ("query", "expected_first"),
    [("instability", 9), ("低秩", 5), ("training instability survey", 9)],
)
def test_bilingual_expansion_finds_the_other_language(query: str, expected_first: int) -> None:
    table = bilingual_table({}, CONCEPTS)
    assert top(query, table)[0] == expected_first


@pytest.mark.parametrize(
    ("query", "alt_weight"),
    [("instability", ALTERNATIVE), ("why is training instability in alignment so hard", 0.5)],
)
def test_aliases_weigh_less_in_long_queries(query: str, alt_weight: float) -> None:
    terms = parse_query(query, expansions=bilingual_table({}, CONCEPTS)).terms
    expanded = [t for t in terms if t.alternatives]
    assert expanded
    assert all(t.alt_weight == alt_weight for t in expanded)
    assert LONG_QUERY_ALTERNATIVE < ALTERNATIVE


@pytest.mark.parametrize(
    ("query", "found"),
    [
        # Words run together in the wrong order: no term matches in stage 2,
        # but most of the title's grams are there.
        ("understandingmultitask", True),
        ("overfittinggrokking", True),
        ("qqqqzzzz", False),  # nothing close: still nothing
    ],
)
def test_fallback_ranks_partial_coverage(query: str, found: bool) -> None:
    assert bool(top(query)) is found


@pytest.mark.parametrize(
    ("word", "fuzzy_title", "summary"),
    [
        ("adamw", "AdamX Preconditioning Revisited", "我们使用 adamw 优化器训练。"),
        ("grokking", "Grokkinq Dynamics in Toy Tasks", "观察到 grokking 现象。"),
    ],
)
def test_rare_word_in_summary_beats_fuzzy_title(word: str, fuzzy_title: str, summary: str) -> None:
    filler = [(f"Filler Study Number {i}", "无关的内容。") for i in range(30)]
    papers = [*filler, (fuzzy_title, "无关的内容。"), ("Plain Title Here", summary)]
    ids = list(rank(make_index(papers), parse_query(word)).ids)
    assert ids[:2] == [len(papers), len(papers) - 1]


@pytest.mark.parametrize(
    ("query", "not_found"),
    [
        # English words spelled right: no typo or piece match of another word.
        ("reference", "Preference"),
        ("transition", "Translation"),
        # Jargon general English lacks but the vocabulary names (`Term.typos`).
        ("optimizer", "Optimized"),
    ],
)
def test_a_word_spelled_right_finds_no_other_word(query: str, not_found: str) -> None:
    ranking = rank(real_index(), parse_query(query, expansions=shipped_table()))
    titles = [title_of(int(i)) for i in ranking.ids]
    assert titles
    assert not any(not_found in title for title in titles)


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("shampo optimizer", "Shampoo"),
        ("preferense optimization", "Preference"),
        ("optimzers", "Optimizers"),
    ],
)
def test_a_misspelt_word_still_finds_the_word_meant(query: str, found: str) -> None:
    ranking = rank(real_index(), parse_query(query, expansions=shipped_table()))
    assert found in title_of(int(ranking.ids[0]))
