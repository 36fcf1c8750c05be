"""A year read from a query's words that alone finds nothing is dropped
(`rank_or_yearless`); a year the user gave as an option never is."""

from __future__ import annotations

import pytest

from paperbot.core.search import parse_query, rank, rank_or_yearless
from tests.support.search import real_index


@pytest.mark.parametrize(
    ("query", "year_option", "dropped", "finds"),
    [
        ("scaling laws 1999", None, 1999, True),  # no 1999 papers: the words answer
        ("scaling laws", 1999, None, False),  # the option stands
        ("scaling laws 2023", None, None, True),  # the year finds papers: kept
        ("scaling laws", None, None, True),  # no year at all
        ("zzzz qqqq 1999", None, None, False),  # nothing without the year either
    ],
)
def test_rank_or_yearless(
    query: str, year_option: int | None, dropped: int | None, finds: bool
) -> None:
    index = real_index()
    parsed = parse_query(query, venues=index.venues, year=year_option)
    answered, ranking, year_dropped = rank_or_yearless(
        index, parsed, highlight=5, eager=5, year_given=year_option is not None
    )
    assert year_dropped == dropped
    assert bool(ranking.ids) == finds
    assert answered.year == (None if dropped else parsed.year)
    if dropped is None:
        assert answered == parsed
        assert ranking.ids == rank(index, parsed, highlight=5, eager=5).ids
