"""The sort-based set operations give numpy's own results, values and
dtype, on the edge cases (whichever way numpy computes them: a hash table
in numpy >= 2, a sort before)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from paperbot.core.arrays import distinct, run_starts, sorted_union

DTYPES = [np.int32, np.int64, np.intp, np.uint32]

VALUES = [
    pytest.param([], id="empty"),
    pytest.param([7], id="one"),
    pytest.param([4, 4, 4, 4], id="all-equal"),
    pytest.param([9, 2, 5, 2, 9, 0, 1], id="unsorted"),
    pytest.param([0, 1, 2, 3], id="already-distinct"),
    pytest.param([1, 1, 2, 3, 3, 3], id="sorted-runs"),
    pytest.param([2**31 - 1, 0, 2**31 - 1, 5], id="int32-max"),
]

SIGNED = [
    pytest.param([-3, 5, -3, 0, -(2**31), 5], id="negative"),
    pytest.param([-1, -1], id="negative-equal"),
]


def _array(values: list[int], dtype: type[np.integer[Any]]) -> npt.NDArray[np.integer[Any]]:
    return np.asarray(values, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("values", VALUES)
def test_distinct_equals_numpy_unique(values: list[int], dtype: type[np.integer[Any]]) -> None:
    array = _array(values, dtype)
    got, expected = distinct(array), np.unique(array)
    assert got.tolist() == expected.tolist()
    assert got.dtype == expected.dtype
    assert array.tolist() == values  # the input is left as it was


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("values", SIGNED)
def test_distinct_of_negative_values(values: list[int], dtype: type[np.integer[Any]]) -> None:
    array = _array(values, dtype)
    assert distinct(array).tolist() == np.unique(array).tolist()


def test_distinct_flattens_as_numpy_does() -> None:
    array = np.array([[3, 1], [1, 2]], dtype=np.int64)
    assert distinct(array).tolist() == np.unique(array).tolist() == [1, 2, 3]


@pytest.mark.parametrize(
    ("a", "b", "a_type", "b_type"),
    [
        ([], [], np.int32, np.int32),
        ([1, 4], [], np.int64, np.int64),
        ([], [3, 3, 1], np.int64, np.int64),
        ([0, 2, 9], [2, 3, 9, 11], np.int32, np.int32),
        ([5], [1, 2, 3], np.int32, np.int32),
        ([5, 5, 1], [1, 5], np.int64, np.int64),
        ([-4, 0, -4], [-5, 7], np.int64, np.int64),
        ([8, 1], [1, 2], np.int64, np.int32),  # mixed: numpy promotes to int64
        ([8, 1], [1, 2], np.int32, np.intp),
    ],
)
def test_sorted_union_equals_numpy_union(
    a: list[int], b: list[int], a_type: type[np.integer[Any]], b_type: type[np.integer[Any]]
) -> None:
    left, right = _array(a, a_type), _array(b, b_type)
    got, expected = sorted_union(left, right), np.union1d(left, right)
    assert got.tolist() == expected.tolist()
    assert got.dtype == expected.dtype


@pytest.mark.parametrize(
    "values",
    [[], [7], [4, 4, 4], [-2, -2, 0, 3, 3, 8], [0, 1, 2]],
)
def test_run_starts_equals_numpy_first_indices(values: list[int]) -> None:
    array = np.asarray(values, dtype=np.int64)
    got = run_starts(array)
    assert got.tolist() == np.unique(array, return_index=True)[1].tolist()
    assert got.dtype == np.int64


def test_distinct_of_many_random_values_equals_numpy() -> None:
    rng = np.random.default_rng(14)
    for dtype in (np.int32, np.int64):
        array = rng.integers(-1000, 1000, size=5000).astype(dtype)
        assert np.array_equal(distinct(array), np.unique(array))
        other = rng.integers(0, 3000, size=700).astype(dtype)
        assert np.array_equal(sorted_union(array, other), np.union1d(array, other))
