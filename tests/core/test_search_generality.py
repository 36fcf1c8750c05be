"""How much a query word counts (issue 10 part 4): stop and question words
leave a query even when they have a translation; an English word weighs by
its general English frequency as well as the corpus's document frequency;
a translation counts with the weight of the word it translates."""

from __future__ import annotations

import pytest

from paperbot.core.search import (
    SearchIndex,
    Term,
    build_index_columns,
    english_idf,
    general_idf,
    parse_query,
    stage1_scores,
    term_weight,
    zipf_frequency,
)
from tests.support.search import index_of

# "small" and "shampoo" are each in one title: equally rare here.
PAPERS = [
    ("Small Proxies for Data Mixtures", "用小代理模型选择数据配比。"),
    ("Shampoo Preconditioning at Scale", "二阶优化器。"),
    ("Real Emergent Abilities", "涌现能力是否真实。"),
    ("Scaling Laws for Language Models", "缩放定律。"),
    ("Attention Is All You Need", "注意力机制。"),
    ("Sparse Attention Patterns", "稀疏注意力。"),
]


def _index() -> SearchIndex:
    return index_of(PAPERS)


@pytest.mark.parametrize(
    ("query", "expansions", "terms"),
    [
        # A translation no longer lets a question or function word in.
        ("can sparse attention", {"can": ("能够",)}, ("sparse", "attention")),
        ("what is real", {"what": ("什么",)}, ("real",)),
        ("the attention", {"the": ("这个",)}, ("attention",)),
        # Nothing else left: the question word stays, with its alias.
        ("what", {"what": ("什么",)}, ("what",)),
        # A content word keeps its translation.
        ("real attention", {"real": ("真实",)}, ("real", "attention")),
    ],
)
def test_words_with_translations_are_filtered_like_others(
    query: str, expansions: dict[str, tuple[str, ...]], terms: tuple[str, ...]
) -> None:
    parsed = parse_query(query, expansions=expansions)
    assert tuple(t.text for t in parsed.terms) == terms


@pytest.mark.parametrize(
    ("everyday", "topical"),
    [("make", "training"), ("small", "attention"), ("real", "memory"), ("big", "network")],
)
def test_everyday_english_words_are_commoner_than_topical_ones(everyday: str, topical: str) -> None:
    common, rarer = general_idf(everyday), general_idf(topical)
    assert common is not None
    assert rarer is not None
    assert common < rarer


@pytest.mark.parametrize(("inflected", "stem"), [("inputs", "input"), ("studies", "study")])
def test_an_inflection_is_as_general_as_its_stem(inflected: str, stem: str) -> None:
    assert general_idf(inflected) == pytest.approx(general_idf(stem))


@pytest.mark.parametrize("word", ["qlora", "shampoo", "pretraining", "语言", "zeroth-order"])
def test_words_the_general_list_lacks_have_no_general_idf(word: str) -> None:
    assert zipf_frequency(word) is None
    assert general_idf(word) is None


@pytest.mark.parametrize(
    ("corpus", "general", "expected"),
    [
        (5.0, None, 5.0),  # unknown to English at large: the corpus decides
        (5.0, 2.0, 3.5),  # rare here, everyday in English: halfway
        (2.0, 5.0, 2.0),  # common here: never raised by the general estimate
        (3.0, 3.0, 3.0),
    ],
)
def test_english_idf_combines_both_estimates(
    corpus: float, general: float | None, expected: float
) -> None:
    assert english_idf(corpus, general) == pytest.approx(expected)


@pytest.mark.parametrize(("everyday", "rare"), [("small", "shampoo"), ("real", "qlora")])
def test_an_everyday_word_weighs_less_than_an_equally_rare_term(everyday: str, rare: str) -> None:
    assert term_weight(Term(everyday), 5.0) < term_weight(Term(rare), 5.0)


def test_corpus_df_alone_sees_small_and_shampoo_alike_but_the_weights_differ() -> None:
    index = _index()
    weights = {w: stage1_scores(index, [Term(w)])[1][0] for w in ("small", "shampoo")}
    assert weights["small"] < 0.9 * weights["shampoo"]


@pytest.mark.parametrize(
    ("word", "translation"), [("small", "小"), ("real", "真实"), ("attention", "注意力")]
)
def test_a_translation_counts_with_its_words_weight(word: str, translation: str) -> None:
    index = _index()
    plain = stage1_scores(index, [Term(word)])[1][0]
    translated = Term(word, (translation,), translations=frozenset({translation}))
    assert stage1_scores(index, [translated])[1][0] == pytest.approx(plain)


# "inputs" is in one title; 输入 in most summaries.
COMMON_TRANSLATION = [
    ("Length Generalization Beyond Training Inputs", "更长的输入。"),
    ("Prompt Compression", "压缩输入提示。"),
    ("Retrieval Heads", "长输入中的检索头。"),
    ("Vision Tokens", "图像输入的词元。"),
    ("Grokking", "突然泛化。"),
]


def _weight(term: Term) -> float:
    index = build_index_columns(
        ids=list(range(1, len(COMMON_TRANSLATION) + 1)),
        titles=[t for t, _ in COMMON_TRANSLATION],
        venues=["arXiv"] * len(COMMON_TRANSLATION),
        years=[2024] * len(COMMON_TRANSLATION),
        summaries=[s for _, s in COMMON_TRANSLATION],
    )
    return stage1_scores(index, [term])[1][0]


@pytest.mark.parametrize(
    ("term", "plain", "lowered"),
    [
        # An English word weighs no more than its commonest translation.
        (Term("inputs", ("输入",), translations=frozenset({"输入"})), Term("inputs"), True),
        # A mere alias (no translation) says nothing of the word's generality.
        (Term("inputs", ("输入",)), Term("inputs"), False),
        # A Chinese word keeps its own (summary) weight.
        (Term("输入", ("inputs",), translations=frozenset({"inputs"})), Term("输入"), False),
    ],
)
def test_an_english_word_is_as_general_as_its_translation(
    term: Term, plain: Term, lowered: bool
) -> None:
    if lowered:
        assert _weight(term) < 0.8 * _weight(plain)
    else:
        assert _weight(term) == pytest.approx(_weight(plain))
