"""Entries merge into one record per title key, first entry first, whether
a paper has one entry or several."""

from __future__ import annotations

import pytest

from paperbot.core.corpus import merge_entries
from paperbot.core.models import Entry, Source


def entry(title: str, line: int, venue: str = "ICML") -> Entry:
    return Entry(title, venue, 2025, "预训练", (f"摘要{line}",), Source("a.txt", line))


@pytest.mark.parametrize(
    ("titles", "expected"),
    [
        (["A", "B"], [("a", [1]), ("b", [2])]),
        (["A", "a", "B", "A "], [("a", [1, 2, 4]), ("b", [3])]),
        (["X", "Y", "x"], [("x", [1, 3]), ("y", [2])]),
        ([], []),
    ],
)
def test_records_group_entries_by_key_in_first_seen_order(
    titles: list[str], expected: list[tuple[str, list[int]]]
) -> None:
    entries = [entry(t, i, venue=f"V{i}") for i, t in enumerate(titles, start=1)]
    records = merge_entries(entries)
    assert [(r.key, [e.source.line for e in r.entries]) for r in records] == expected
    for record in records:
        first = record.entries[0]
        assert (record.title, record.venue) == (first.title, first.venue)
        assert isinstance(record.entries, tuple)
