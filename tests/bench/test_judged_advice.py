"""The advice questions (`judged/advice_queries.toml`, tuned, and
`judged/heldout_advice_queries.toml`) are well-formed, name real papers, and
share no question with each other or with the other judged queries. Data
checks only: nothing here runs the bot."""

from __future__ import annotations

import pytest

from paperbot.bench.judged import (
    ADVICE_QUERIES_FILE,
    HELD_OUT_ADVICE_QUERIES_FILE,
    HELD_OUT_QUERIES_FILE,
    JudgedQuery,
    load_judged_queries,
    shipped_titles,
)
from paperbot.core.text import has_cjk

HALF = 20


@pytest.fixture(scope="module")
def halves() -> tuple[tuple[JudgedQuery, ...], tuple[JudgedQuery, ...]]:
    return load_judged_queries(ADVICE_QUERIES_FILE), load_judged_queries(
        HELD_OUT_ADVICE_QUERIES_FILE
    )


def test_each_half_has_questions_in_both_languages(
    halves: tuple[tuple[JudgedQuery, ...], tuple[JudgedQuery, ...]],
) -> None:
    for half in halves:
        assert len(half) == HALF
        assert {q.kind for q in half} == {"question_en", "question_zh"}
        for query in half:
            assert has_cjk(query.query) == (query.kind == "question_zh"), query.query


def test_every_advice_question_names_real_papers_with_a_reason(
    halves: tuple[tuple[JudgedQuery, ...], tuple[JudgedQuery, ...]],
) -> None:
    for query in (*halves[0], *halves[1]):
        assert set(query.expected) <= shipped_titles(), query.query
        assert query.why.strip(), query.query


def test_no_question_is_in_two_judged_sets(
    halves: tuple[tuple[JudgedQuery, ...], tuple[JudgedQuery, ...]],
) -> None:
    tuned, held = ({q.query for q in half} for half in halves)
    others = {q.query for q in load_judged_queries()} | {
        q.query for q in load_judged_queries(HELD_OUT_QUERIES_FILE)
    }
    assert not tuned & held
    assert not (tuned | held) & others
