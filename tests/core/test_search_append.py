"""Appending papers to an index gives exactly the arrays of a full build."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from paperbot.bench.synthetic import synthetic_papers
from paperbot.config import BUNDLED_CORPUS
from paperbot.core.corpus import decode, merge_entries, parse_text
from paperbot.core.search import SearchIndex, append_papers, build_index_columns, to_arrays

Row = tuple[int, str, str, int, str]


def bundled_rows() -> list[Row]:
    files = []
    for path in sorted(BUNDLED_CORPUS.glob("*.txt")):
        text = decode(path.read_bytes(), path.name)
        assert isinstance(text, str)
        files.append(parse_text(text, path.name, "预训练"))
    records = merge_entries(e for f in files for e in f.entries)
    return [
        (i + 1, r.title, r.venue, r.year, "\n\n".join(r.summaries)) for i, r in enumerate(records)
    ]


def build(rows: Sequence[Row]) -> SearchIndex:
    return build_index_columns(
        ids=[r[0] for r in rows],
        titles=[r[1] for r in rows],
        venues=[r[2] for r in rows],
        years=[r[3] for r in rows],
        summaries=[r[4] for r in rows],
    )


def append(index: SearchIndex, rows: Sequence[Row]) -> SearchIndex | None:
    return append_papers(
        index,
        ids=[r[0] for r in rows],
        titles=[r[1] for r in rows],
        venues=[r[2] for r in rows],
        years=[r[3] for r in rows],
        summaries=[r[4] for r in rows],
    )


def synthetic_rows(n: int) -> list[Row]:
    venues = ("NeurIPS", "ICML", "ICLR")
    return [
        (i + 1, title, venues[i % 3], 2024 + i % 3, summary)
        for i, (title, summary) in enumerate(synthetic_papers(n))
    ]


ROWS = bundled_rows()
SYNTHETIC = synthetic_rows(3000)


def assert_same_arrays(got: SearchIndex, expected: SearchIndex) -> None:
    full = to_arrays(expected)
    arrays = to_arrays(got)
    assert arrays.keys() == full.keys()
    for name, array in full.items():
        assert np.array_equal(arrays[name], array), name


@pytest.mark.parametrize("split", [0, 2970, 2999, 3000])
def test_append_equals_a_full_build(split: int) -> None:
    appended = append(build(SYNTHETIC[:split]), SYNTHETIC[split:])
    assert appended is not None
    assert_same_arrays(appended, build(SYNTHETIC))


@pytest.mark.parametrize("split", [1, len(ROWS) // 2, len(ROWS) - 1])
def test_on_the_real_pages_append_equals_a_full_build_or_declines(split: int) -> None:
    # A small corpus moves characters across the common threshold easily:
    # then the append declines and the caller builds in full.
    appended = append(build(ROWS[:split]), ROWS[split:])
    if appended is not None:
        assert_same_arrays(appended, build(ROWS))


def test_a_new_venue_renumbers_the_old_papers() -> None:
    head = [r for r in SYNTHETIC if r[2] != "ICLR"]
    tail = [(5000 + i, r[1] + " Redux", "ICLR", r[3], r[4]) for i, r in enumerate(head[:3])]
    appended = append(build(head), tail)
    assert appended is not None
    assert_same_arrays(appended, build([*head, *tail]))


def test_ids_not_above_the_index_need_a_full_build() -> None:
    index = build(ROWS[10:20])
    assert append(index, ROWS[:1]) is None


def test_a_character_becoming_common_needs_a_full_build() -> None:
    index = build(ROWS[:20])
    flood = [(1000 + i, f"Flood Paper {i}", "ICML", 2025, "熵熵熵的研究") for i in range(200)]
    assert append(index, flood) is None
