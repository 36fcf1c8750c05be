"""A lone Chinese character a query's cut leaves over (树 of 思维树) is kept
as a low-weight term when it is rare in the summaries or the dictionary
translates it into a word the papers use (`_query.is_rare_char`); grammar
and common characters are dropped as before."""

from __future__ import annotations

import pytest

from paperbot.core.search import (
    CHAR_FACTOR,
    COMMON_CHAR,
    Term,
    corpus_word_counts,
    dictionary_translation,
    english_translation,
    is_rare_char,
    parse_query,
    rank,
    term_weight,
)
from tests.support.search import index_of

# Summary document frequencies (Chinese) and papers saying a word (English).
COUNTS = {"思维": 5, "搜索": 4, "用": COMMON_CHAR, "峰": 3, "树": 0, "树木": 0}
COUNTS |= {"tree": 1, "thought": 4}


def count(word: str) -> int:
    return COUNTS.get(word, 0)


@pytest.mark.parametrize(
    ("char", "kept"),
    [
        ("树", True),  # in no summary, but `tree` is in a title: translated
        ("峰", True),  # rare in the summaries (3)
        ("用", False),  # common: grammar or a piece of every other word
        ("的", False),  # a particle
        ("犇", False),  # neither held nor translated into a used word
    ],
)
def test_a_lone_character_is_kept_when_rare_or_translated(char: str, kept: bool) -> None:
    assert is_rare_char(char, count) is kept


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # The cut leaves 树 over: kept, with its first sense, at a low weight.
        (
            "思维树",
            (Term("思维", ("thought",)), Term("树", ("tree",), weight_factor=CHAR_FACTOR)),
        ),
        # A common leftover character is dropped, as before.
        ("用思维", (Term("思维", ("thought",)),)),
        # A rare one the dictionary cannot place in the corpus stays, untranslated.
        (
            "搜索峰",
            (
                Term(
                    "搜索",
                ),
                Term("峰", weight_factor=CHAR_FACTOR),
            ),
        ),
        # A one-character query is the user's own term: full weight.
        ("树", (Term("树", ("tree",)),)),
    ],
)
def test_parse_keeps_rare_leftover_characters(query: str, expected: tuple[Term, ...]) -> None:
    assert parse_query(query, word_count=count).terms == expected


def test_without_corpus_counts_a_run_is_not_cut() -> None:
    assert parse_query("思维树").terms == (Term("思维树"),)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("树", "tree"),  # a character: one paper saying its first sense is enough
        ("思维", None),  # a word needs two (`thought` is said by 4: kept below)
    ],
)
def test_english_translation_of_a_character_needs_one_paper(
    word: str, expected: str | None
) -> None:
    counts = {"tree": 1, "thought": 1}
    assert english_translation(word, lambda w: counts.get(w, 0)) == expected


def test_an_english_word_never_translates_into_one_character() -> None:
    # 树 is in CC-CEDICT as `tree`, but also a piece of 决策树 (decision tree).
    assert dictionary_translation("tree", lambda w: 9 if w == "树" else 0) is None


@pytest.mark.parametrize("idf", [1.0, 2.5, 6.0])
def test_a_kept_character_weighs_char_factor_of_its_idf_weight(idf: float) -> None:
    full = term_weight(Term("峰"), idf)
    assert term_weight(Term("峰", weight_factor=CHAR_FACTOR), idf) == pytest.approx(
        CHAR_FACTOR * full
    )


@pytest.mark.parametrize(
    ("char", "papers"),
    [
        ("峰", 2),  # two summaries of 42: rare
        ("尖", 0),  # one summary: under MIN_PIECE_DF
        ("析", COMMON_CHAR),  # four of 42: over the rare line (IDF below IDF_FULL)
        ("的", COMMON_CHAR),  # in every summary: its unigrams are not even indexed
    ],
)
def test_corpus_word_counts_count_a_character(char: str, papers: int) -> None:
    spikes = [("Loss Spikes", "损失尖峰的成因。"), ("Peaks", "峰值的走势。")]
    analyses = [(f"Analysis {i}", f"第{i}个的分析。") for i in range(4)]
    fillers = [(f"Paper {i}", f"第{i}个的工作。") for i in range(36)]
    index = index_of([*spikes, *analyses, *fillers])
    assert corpus_word_counts(index)(char) == papers


def test_the_leftover_character_finds_the_paper_saying_it_in_english() -> None:
    index = index_of(
        [
            ("Tree of Thoughts", "用思维做搜索。"),
            ("Chain of Thought Prompting", "思维链提示。"),
        ]
    )
    query = parse_query("思维树", word_count=corpus_word_counts(index))
    assert [t.text for t in query.terms] == ["思维", "树"]
    assert rank(index, query).ids[0] == 1
