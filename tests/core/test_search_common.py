"""The per-character counts stored with the index: summed over the parts of
a field (the base, its segments, the new papers), they give exactly the
common characters `common_cjk_chars` finds in the whole field, on both
sides of the size from which it counts a sample; `keeps_common` says
whether the last part changes them."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from numpy.typing import NDArray

from paperbot.core.search import (
    char_counts,
    common_cjk_chars,
    common_from_counts,
    keeps_common,
    stored_common,
)

# Characters in about a quarter of the texts each (the common threshold),
# so where a field is cut and how long it is decide which are common.
NEAR = "的模型数据学习网络图像熵"


def texts_of(n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [
        "".join(c for c in NEAR if rng.random() < 0.22 + 0.01 * (i % 7)) + f"x{i}" for i in range(n)
    ]


TEXTS = texts_of(20_000)


def counts_of(texts: list[str], cuts: list[int]) -> list[NDArray[np.int64]]:
    bounds = [0, *cuts, len(texts)]
    return [char_counts(texts[a:b], a) for a, b in itertools.pairwise(bounds)]


@pytest.mark.parametrize(
    ("size", "cuts"),
    [
        (0, []),
        (300, []),
        (300, [1, 150, 299]),
        (16_383, [16_000]),
        (16_384, [16_383]),
        (16_385, [10_001, 16_384]),
        (20_000, [16_384, 17_003]),
        (20_000, [5, 7, 19_998]),
    ],
)
def test_summed_counts_give_the_common_characters_of_the_whole(size: int, cuts: list[int]) -> None:
    texts = TEXTS[:size]
    expected = common_cjk_chars(texts)
    assert np.array_equal(common_from_counts(counts_of(texts, cuts), size), expected)


@pytest.mark.parametrize(
    ("size", "added"),
    [(300, 3), (300, 200), (16_000, 384), (16_000, 1_000), (19_000, 1_000), (1_000, 0)],
)
def test_keeps_common_says_whether_a_full_build_drops_the_same_characters(
    size: int, added: int
) -> None:
    texts = TEXTS[: size + added]
    parts = [{"title_chars": c, "summary_chars": c} for c in counts_of(texts, [size // 2, size])]
    same = np.array_equal(common_cjk_chars(texts[:size]), common_cjk_chars(texts))
    assert keeps_common(parts, size, added) == same


def test_a_flood_of_one_character_changes_the_common_ones() -> None:
    base = TEXTS[:400]
    flood = ["熵熵的研究"] * 150
    parts = [{"title_chars": c, "summary_chars": c} for c in counts_of([*base, *flood], [400])]
    assert not keeps_common(parts, 400, 150)
    assert ord("熵") in common_cjk_chars([*base, *flood])


@pytest.mark.parametrize(("size", "cuts"), [(300, [150]), (16_385, [10_001, 16_384])])
def test_stored_common_gives_each_field_s_common_characters(size: int, cuts: list[int]) -> None:
    summaries = TEXTS[:size]
    titles = [f"熵{t}" for t in summaries]  # a field of its own: 熵 is common here only
    parts = [
        {"title_chars": t, "summary_chars": s}
        for t, s in zip(counts_of(titles, cuts), counts_of(summaries, cuts), strict=True)
    ]
    found = stored_common(parts, size)
    assert found is not None
    assert [f.tolist() for f in found] == [
        common_cjk_chars(titles).tolist(),
        common_cjk_chars(summaries).tolist(),
    ]
    # A part stored without counts (no replay can read them): count instead.
    assert stored_common([*parts, {"ids": np.zeros(0, dtype=np.int64)}], size) is None
