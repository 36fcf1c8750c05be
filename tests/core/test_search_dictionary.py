"""An English query word no alias names is translated through the shipped
CC-CEDICT dictionary (`_dictionary.dictionary_translation`): the first
sense the summaries use, the commonest of those, counted as an alias."""

from __future__ import annotations

import pytest

from paperbot.core.search import (
    ALTERNATIVE,
    SearchIndex,
    Term,
    corpus_word_counts,
    dictionary_translation,
    parse_query,
    rank,
)
from tests.support.search import index_of

# Summary document frequencies a corpus might show.
COUNTS = {"聊天": 5, "唠嗑": 0, "突然": 3, "急剧": 9, "跳跃": 2, "训练": 40, "树木": 0}


def count(word: str) -> int:
    return COUNTS.get(word, 0)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        # Of the first senses (唠嗑, 聊天 ...), the one the summaries say.
        ("chat", "聊天"),
        # A first sense (突然) before a commoner later one (急剧).
        ("sudden", "突然"),
        # Inflections find their stem's entry.
        ("jumps", "跳跃"),
        ("trained", "训练"),
        # No summary says its translation (树木): nothing.
        ("tree", None),
        # Grammar, generic and short words are never translated.
        ("about", None),
        ("model", None),
        ("the", None),
        ("ab", None),
        # Not an English word.
        ("训练", None),
    ],
)
def test_dictionary_translation(word: str, expected: str | None) -> None:
    assert dictionary_translation(word, count) == expected


PAPERS = [
    ("Less Is More for Alignment", "少量高质量样本就能得到聊天能力。"),
    ("Dialogue Agents", "多轮聊天数据。"),
    ("Assistant Tuning", "通用助手。"),
    ("Filler", "其他内容。"),
]


def make_index() -> SearchIndex:
    return index_of(PAPERS)


def test_a_word_gets_its_translation_as_an_alias_only_when_the_corpus_is_known() -> None:
    index = make_index()
    with_corpus = parse_query("chat", word_count=corpus_word_counts(index))
    assert with_corpus.terms == (Term("chat", ("聊天",)),)
    assert with_corpus.terms[0].weight_of("聊天") == ALTERNATIVE
    assert parse_query("chat").terms == (Term("chat"),)


def test_an_english_query_finds_papers_whose_summary_says_it_in_chinese() -> None:
    index = make_index()
    query = parse_query("chat", word_count=corpus_word_counts(index))
    assert set(rank(index, query).ids) == {1, 2}
    assert rank(index, parse_query("chat")).ids == ()
