"""A year read from a query's words that alone finds nothing is dropped
(`rank_or_yearless`); a year the user gave as an option never is."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from paperbot.core.search import QueryProblem, loaded_years, parse_query, rank, rank_or_yearless
from tests.support.search import real_index


@pytest.mark.parametrize(
    ("query", "year_option", "dropped", "finds", "problem"),
    [
        ("scaling laws 1999", None, 1999, True, None),  # no 1999 papers: the words answer
        # The option stands; no paper is from 1999, and the answer says so.
        ("scaling laws", 1999, None, False, QueryProblem.UNKNOWN_YEAR),
        ("zzzz qqqq", 2023, None, False, None),  # a loaded year: just no match
        ("scaling laws 2023", None, None, True, None),  # the year finds papers: kept
        ("scaling laws", None, None, True, None),  # no year at all
        ("zzzz qqqq 1999", None, None, False, None),  # nothing without the year either
    ],
)
def test_rank_or_yearless(
    query: str,
    year_option: int | None,
    dropped: int | None,
    finds: bool,
    problem: QueryProblem | None,
) -> None:
    index = real_index()
    parsed = parse_query(query, venues=index.venues, year=year_option)
    answered, ranking, year_dropped = rank_or_yearless(
        index, parsed, highlight=5, eager=5, year_given=year_option is not None
    )
    assert year_dropped == dropped
    assert bool(ranking.ids) == finds
    assert answered.year == (None if dropped else parsed.year)
    assert answered.problem is problem
    if dropped is None:
        assert replace(answered, problem=None) == parsed
        assert ranking.ids == rank(index, parsed, highlight=5, eager=5).ids


def test_loaded_years_are_the_live_papers_years() -> None:
    index = real_index()
    assert loaded_years(index) == (2023, 2025, 2026)
    not_2023 = [i for i, year in enumerate(index.years) if year != 2023]
    retired = replace(index, dead=np.array(not_2023, dtype=np.int64))
    assert loaded_years(retired) == (2023,)
