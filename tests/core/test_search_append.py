"""Appending papers to an index gives exactly the arrays of a full build;
changed and removed papers leave dead entries no search returns."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from paperbot.bench.synthetic import synthetic_papers
from paperbot.config import BUNDLED_CORPUS
from paperbot.core.arrays import sorted_union
from paperbot.core.corpus import decode, merge_entries, parse_text
from paperbot.core.search import (
    SearchIndex,
    append_papers,
    build_index_columns,
    common_cjk_chars,
    from_arrays,
    parse_query,
    rank,
    to_arrays,
    update_papers,
)

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


@pytest.mark.parametrize(("extra", "same"), [((), True), ((ord("熵"),), False)])
def test_the_common_characters_given_decide_instead_of_a_count(
    extra: tuple[int, ...], same: bool
) -> None:
    # As a replayed segment gives them, from the counts stored with it.
    full = build(SYNTHETIC)
    given = tuple(
        sorted_union(common_cjk_chars(texts), np.array(extra, dtype=np.int64)).astype(np.int64)
        for texts in (full.titles, full.summaries)
    )
    rows = SYNTHETIC[2970:]
    appended = update_papers(
        build(SYNTHETIC[:2970]),
        removed=(),
        ids=[r[0] for r in rows],
        titles=[r[1] for r in rows],
        venues=[r[2] for r in rows],
        years=[r[3] for r in rows],
        summaries=[r[4] for r in rows],
        common=(given[0], given[1]),
    )
    if same:
        assert appended is not None
        assert_same_arrays(appended, full)
    else:  # a character the index does not drop: only a full build answers
        assert appended is None


def update(index: SearchIndex, removed: Sequence[int], rows: Sequence[Row]) -> SearchIndex:
    updated = update_papers(
        index,
        removed=removed,
        ids=[r[0] for r in rows],
        titles=[r[1] for r in rows],
        venues=[r[2] for r in rows],
        years=[r[3] for r in rows],
        summaries=[r[4] for r in rows],
    )
    assert updated is not None
    return updated


def ranked_ids(index: SearchIndex, query: str, **filters: object) -> list[int]:
    parsed = parse_query(query, venues=index.venues, **filters)  # type: ignore[arg-type]
    return list(rank(index, parsed).ids)


CHANGED = SYNTHETIC[7]
EDITED = (CHANGED[0], CHANGED[1], CHANGED[2], CHANGED[3], "改为研究珊瑚礁的白化。")
REMOVED = SYNTHETIC[11]


@pytest.mark.parametrize(
    ("query", "filters", "present", "absent"),
    [
        ("珊瑚礁", {}, {CHANGED[0]}, set()),
        (CHANGED[1], {}, {CHANGED[0]}, set()),
        (REMOVED[1], {}, set(), {REMOVED[0]}),
        ("", {"venue": REMOVED[2], "year": REMOVED[3]}, set(), {REMOVED[0]}),
    ],
)
def test_dead_entries_are_never_ranked(
    query: str, filters: dict[str, object], present: set[int], absent: set[int]
) -> None:
    index = update(build(SYNTHETIC[:1000]), [REMOVED[0]], [EDITED])
    assert index.size == 1001
    assert sorted(index.ids[index.dead].tolist()) == sorted([CHANGED[0], REMOVED[0]])
    ids = ranked_ids(index, query, **filters)
    assert len(ids) == len(set(ids))  # a changed paper is one hit, not two
    assert present <= set(ids)
    assert not absent & set(ids)


def test_nothing_new_only_marks_dead() -> None:
    index = build(SYNTHETIC[:100])
    same = update(index, [], [])
    assert same is index
    gone = update(index, [SYNTHETIC[3][0]], [])
    assert gone.dead.tolist() == [3]
    assert gone.live == 99


def test_dead_entries_round_trip_through_arrays() -> None:
    index = update(build(SYNTHETIC[:100]), [REMOVED[0]], [EDITED])
    again = from_arrays(to_arrays(index))
    assert again.dead.tolist() == index.dead.tolist()
    assert ranked_ids(again, "珊瑚礁") == ranked_ids(index, "珊瑚礁") == [CHANGED[0]]
