"""A Chinese query run is cut into aliases and corpus words together
(`parse_query(..., word_count=corpus_word_counts(index))`, `_cut.cut_run`):
most characters covered, the fewest pieces, fragments of a longer word of
the run left out, the more specific of two aliases kept."""

from __future__ import annotations

import pytest

from paperbot.core.search import SearchIndex, corpus_word_counts, parse_query
from tests.support.search import index_of

# Each corpus word below is in two summaries at least (MIN_PIECE_DF).
PAPERS = [
    ("A", "大模型训练中的损失尖峰。"),
    ("B", "大模型的训练成本。"),
    ("C", "训练后期会出现震荡，会出现尖峰。"),
    ("D", "网页数据去重很重要。"),
    ("E", "代码数据去重。"),
    ("F", "训练数据中的噪声。"),
    ("G", "训练数据的来源。"),
]
EXPANSIONS = {
    "大模型": ("llm",),
    "模型训练": ("model training",),
    "损失尖峰": ("loss spike",),
    "去重": ("deduplication",),
    "训练数据": ("training data",),
    "数据重复": ("data repetition",),
}


def make_index() -> SearchIndex:
    return index_of(PAPERS)


@pytest.mark.parametrize(
    ("query", "pieces"),
    [
        # The longest alias found first (模型训练) stranded 大: 大 + 模型训练.
        ("大模型训练会出现损失尖峰", ("大模型", "训练", "会出现", "损失尖峰")),
        # A corpus word holding an alias is cut at the alias (its translation counts).
        ("数据去重", ("数据", "去重")),
        # Two aliases tie on coverage and pieces: the more specific one stays.
        ("训练数据重复", ("训练", "数据重复")),
        # Nothing known: the run stays whole.
        ("完全陌生词语", ("完全陌生词语",)),
    ],
)
def test_runs_are_cut_into_aliases_and_corpus_words(query: str, pieces: tuple[str, ...]) -> None:
    index = make_index()
    parsed = parse_query(query, expansions=EXPANSIONS, word_count=corpus_word_counts(index))
    assert tuple(t.text for t in parsed.terms) == pieces


@pytest.mark.parametrize(
    ("gram", "df"),
    [
        ("训练", 5),
        ("会出现", 0),  # one summary (twice): under MIN_PIECE_DF counts 0
        ("大模", 2),
        ("数据去重", 2),
        ("陌生", 0),
    ],
)
def test_corpus_word_counts_are_summary_document_frequencies(gram: str, df: int) -> None:
    assert corpus_word_counts(make_index())(gram) == df


def test_without_corpus_counts_aliases_alone_cut_the_run() -> None:
    parsed = parse_query("大模型训练会出现损失尖峰", expansions=EXPANSIONS)
    # 大模型 + 损失尖峰 cover 7 characters, 模型训练 + 损失尖峰 8: the rest stays as runs.
    assert tuple(t.text for t in parsed.terms) == ("大", "模型训练", "会出现", "损失尖峰")
