"""Everyday Chinese words are a question's frame, not its topic (issue 10
part 4): a word commoner in Chinese at large than in the papers' summaries,
said no more in English either, counts as a generic word; a word the papers
say more than everyday language does, or the vocabulary names, is content."""

from __future__ import annotations

import math

import pytest

from paperbot.core.search import (
    GENERIC_FACTOR,
    Term,
    corpus_word_counts,
    parse_query,
    says_less_than_usual,
    split_unknown_runs,
    stage1_scores,
    term_weight,
)
from tests.support.search import real_index, shipped_table

NONE_OF_292 = math.log1p(292)  # the IDF of a word no shipped paper says


@pytest.mark.parametrize(
    ("word", "idf", "expected"),
    [
        ("以后", NONE_OF_292, True),  # everyday (Zipf 5.46), in no summary
        ("其实", 3.91, True),  # in 2.0% of the papers; Chinese at large predicts 2.1%
        ("以后", 2.0, False),  # in one paper of seven: more than the 2.3% predicted
        ("训练", 1.0, False),  # everyday, and papers say it far more
        ("蒸馏", NONE_OF_292, False),  # rarer than FRAME_ZIPF: no evidence either way
        ("厉害", NONE_OF_292, False),  # everyday but under FRAME_ZIPF (4.78)
        ("following", NONE_OF_292, True),  # everyday English no paper says
        ("image", 1.5, False),  # papers say it more than English at large
        ("shampoo", NONE_OF_292, False),  # not in the general list
        ("attention head", NONE_OF_292, False),  # a phrase: no general frequency
    ],
)
def test_says_less_than_usual(word: str, idf: float, expected: bool) -> None:
    assert says_less_than_usual(word, idf) is expected


@pytest.mark.parametrize(
    ("term", "alt_weights", "frame"),
    [
        (Term("以后"), (), True),
        (Term("以后", ("following",)), (NONE_OF_292,), True),  # nor in English
        (Term("图片", ("image",)), (1.5,), False),  # the papers say it in English
        (Term("安全", typos=False), (), False),  # the vocabulary names it
        (Term("注意力头"), (), False),  # no everyday word
        (Term("以后", ("following",)), (), False),  # its alternative not weighed
    ],
)
def test_a_frame_word_weighs_as_a_generic_word(
    term: Term, alt_weights: tuple[float, ...], frame: bool
) -> None:
    weight = term_weight(term, NONE_OF_292, alt_weights)
    full = term_weight(Term(term.text, typos=False), NONE_OF_292)
    assert weight == pytest.approx(GENERIC_FACTOR * full if frame else full)


def _weights(query: str) -> dict[str, float]:
    index = real_index()
    parsed = parse_query(query, expansions=shipped_table(), word_count=corpus_word_counts(index))
    terms = split_unknown_runs(index, parsed.terms)
    return dict(zip((t.text for t in terms), stage1_scores(index, terms)[1], strict=True))


@pytest.mark.parametrize(
    ("query", "frame", "content"),
    [
        ("量化以后精度会掉吗", "以后", "量化"),
        ("其实大模型需要蒸馏吗", "其实", "蒸馏"),
    ],
)
def test_on_the_shipped_papers_the_frame_weighs_below_the_content(
    query: str, frame: str, content: str
) -> None:
    weights = _weights(query)
    assert weights[frame] < weights[content] / 2, weights


def test_an_everyday_word_the_papers_say_in_english_stays_content() -> None:
    weights = _weights("图片分类")
    assert weights["图片"] > 1.0, weights  # its `image` is in many papers
