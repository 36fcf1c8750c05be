"""The colloquial Chinese questions (`judged/colloquial_queries.toml`, tuned,
and `judged/heldout_colloquial_queries.toml`) are well-formed Chinese
questions, name real papers, and share no question with each other or with
the other judged queries. Data checks only: nothing here runs the bot."""

from __future__ import annotations

import pytest

from paperbot.bench.judged import (
    ADVICE_QUERIES_FILE,
    COLLOQUIAL_QUERIES_FILE,
    HELD_OUT_ADVICE_QUERIES_FILE,
    HELD_OUT_COLLOQUIAL_QUERIES_FILE,
    HELD_OUT_QUERIES_FILE,
    JudgedQuery,
    load_judged_queries,
    shipped_titles,
)
from paperbot.core.text import has_cjk

HALF = 20
Halves = tuple[tuple[JudgedQuery, ...], tuple[JudgedQuery, ...]]


@pytest.fixture(scope="module")
def halves() -> Halves:
    return load_judged_queries(COLLOQUIAL_QUERIES_FILE), load_judged_queries(
        HELD_OUT_COLLOQUIAL_QUERIES_FILE
    )


def test_each_half_holds_chinese_questions_only(halves: Halves) -> None:
    for half in halves:
        assert len(half) == HALF
        for query in half:
            assert query.kind == "question_zh", query.query
            assert has_cjk(query.query), query.query


def test_every_question_names_one_to_three_real_papers_with_a_reason(halves: Halves) -> None:
    for query in (*halves[0], *halves[1]):
        assert 1 <= len(query.expected) <= 3, query.query
        assert set(query.expected) <= shipped_titles(), query.query
        assert query.why.strip(), query.query


def test_no_question_is_in_two_judged_sets(halves: Halves) -> None:
    tuned, held = ({q.query for q in half} for half in halves)
    others = {
        q.query
        for path in (None, HELD_OUT_QUERIES_FILE, ADVICE_QUERIES_FILE, HELD_OUT_ADVICE_QUERIES_FILE)
        for q in (load_judged_queries() if path is None else load_judged_queries(path))
    }
    assert not tuned & held
    assert not (tuned | held) & others
