"""An English query word no alias names is translated through the shipped
CC-CEDICT dictionary (`_dictionary.dictionary_translation`): the first
sense the summaries use, the commonest of those, counted as an alias."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from paperbot.core.search import (
    ALTERNATIVE,
    SearchIndex,
    Term,
    corpus_word_counts,
    dictionary_translation,
    english_translation,
    parse_query,
    rank,
)
from tests.support.search import index_of

# Summary document frequencies a corpus might show.
COUNTS = {"聊天": 5, "唠嗑": 0, "突然": 3, "急剧": 9, "跳跃": 2, "训练": 40, "树木": 0}
# Papers (title or summary) saying an English word.
COUNTS |= {"thought": 4, "thinking": 9, "chat": 0, "gossip": 0, "train": 30}


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


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        # 思维: (line of) thought / thinking: the first sense the papers use.
        ("思维", "thought"),
        # No paper says any of its senses (chat, gossip): nothing.
        ("聊天", None),
        # Generic and question words are never translated.
        ("模型", None),
        ("为什么", None),
        ("不存在的词", None),
    ],
)
def test_english_translation(word: str, expected: str | None) -> None:
    assert english_translation(word, count) == expected


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


def test_a_chinese_word_no_alias_names_finds_english_titles() -> None:
    index = index_of([("Dialogue Agents That Chat", "多轮对话。"), ("Chat Models", "对话模型。")])
    query = parse_query("聊天", word_count=corpus_word_counts(index))
    assert query.terms == (Term("聊天", ("chat",)),)
    assert set(rank(index, query).ids) == {1, 2}


@pytest.mark.parametrize(("word", "papers"), [("chat", 2), ("chats", 2), ("dialogue", 1)])
def test_corpus_word_counts_count_papers_saying_a_latin_word(word: str, papers: int) -> None:
    # Exact, even under MIN_PIECE_DF (`dialogue` is in one title): a
    # character's translation needs one paper only.
    index = index_of([("Dialogue Agents That Chat", "多轮对话。"), ("Chat Models", "对话模型。")])
    assert corpus_word_counts(index)(word) == papers


def test_removed_papers_do_not_count_for_a_latin_word() -> None:
    index = index_of([("Dialogue Agents That Chat", "多轮对话。"), ("Chat Models", "对话模型。")])
    gone = replace(index, dead=np.array([0], dtype=np.int64))
    assert corpus_word_counts(index)("chat") == 2
    assert corpus_word_counts(gone)("chat") == 1  # one live paper
