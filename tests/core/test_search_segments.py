"""A search index append as a stored segment (`segment_arrays`) and back,
and the dead positions an append leaves (`dead_after`), without the index."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from paperbot.bench.synthetic import synthetic_papers
from paperbot.core import search as core
from paperbot.core.models import PaperColumns


@pytest.mark.parametrize("count", [0, 1, 40])
def test_a_segment_comes_back_as_the_append_it_stores(count: int) -> None:
    papers = synthetic_papers(count)
    columns = PaperColumns(
        ids=[100 + i for i in range(count)],
        titles=[t for t, _ in papers],
        venues=["ICML" if i % 2 else "NeurIPS" for i in range(count)],
        years=[2020 + i % 5 for i in range(count)],
        summaries=[s for _, s in papers],
    )
    expected: dict[str, Any] = {"removed": [3, 9], **dataclasses.asdict(columns)}
    assert core.segment_columns(core.segment_arrays([3, 9], columns)) == expected


def test_a_segment_whose_arrays_disagree_is_refused() -> None:
    arrays = core.segment_arrays(
        [],
        PaperColumns(
            ids=[1, 2], titles=["a", "b"], venues=["v", "v"], years=[1, 2], summaries=["s"]
        ),
    )
    with pytest.raises(ValueError, match="disagree"):
        core.segment_columns(arrays)


@pytest.mark.parametrize(
    ("ids", "dead", "gone", "expected"),
    [
        ([1, 2, 3], [], [], []),
        ([1, 2, 3], [], [2], [1]),
        ([1, 2, 3, 2], [1], [2, 9], [1, 3]),  # a changed paper's old and new entry
        ([1, 2, 3], [0], [1, 3], [0, 2]),
        ([], [], [5], []),
    ],
)
def test_dead_after_marks_every_entry_of_the_gone_ids(
    ids: list[int], dead: list[int], gone: list[int], expected: list[int]
) -> None:
    found = core.dead_after(np.asarray(ids, np.int64), np.asarray(dead, np.int64), gone)
    assert found.tolist() == expected
