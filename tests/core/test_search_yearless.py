"""A year read from a query's words that alone finds nothing is dropped
(`rank_or_yearless`); a year the user gave as an option never is."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from paperbot.core.search import QueryProblem, loaded_years, parse_query, rank, rank_or_yearless
from tests.support.search import real_index


@pytest.mark.parametrize(
    ("query", "venue", "year_option", "dropped", "finds", "problem"),
    [
        ("scaling laws 1999", None, None, 1999, True, None),  # no 1999 papers: the words answer
        # The option stands; no paper is from 1999, and the answer says so.
        ("scaling laws", None, 1999, None, False, QueryProblem.UNKNOWN_YEAR),
        ("zzzz qqqq", None, 2023, None, False, None),  # a loaded year: just no match
        ("scaling laws 2023", None, None, None, True, None),  # the year finds papers: kept
        ("scaling laws", None, None, None, True, None),  # no year at all
        ("zzzz qqqq 1999", None, None, None, False, None),  # nothing without the year either
        # ICLR papers are all from 2026: 2023 is loaded, but not for that venue.
        ("scaling laws", "iclr", 2023, None, False, QueryProblem.UNKNOWN_YEAR),
        ("scaling laws", "neurips", 2023, None, True, None),
        ("zzzz qqqq", "iclr", 2026, None, False, None),  # the venue's year: just no match
    ],
)
def test_rank_or_yearless(
    query: str,
    venue: str | None,
    year_option: int | None,
    dropped: int | None,
    finds: bool,
    problem: QueryProblem | None,
) -> None:
    index = real_index()
    parsed = parse_query(query, venues=index.venues, venue=venue, year=year_option)
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


def test_loaded_years_of_a_venue_are_its_live_papers_years() -> None:
    index = real_index()
    assert loaded_years(index, "ICLR") == loaded_years(index, "iclr") == (2026,)
    assert loaded_years(index, "NeurIPS") == (2023, 2025)
    assert loaded_years(index, "nips") == ()
    iclr = [i for i, code in enumerate(index.venue_codes) if index.venues[code] == "ICLR"]
    assert loaded_years(replace(index, dead=np.array(iclr, dtype=np.int64)), "ICLR") == ()
