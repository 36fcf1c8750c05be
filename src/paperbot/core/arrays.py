"""Set operations on integer arrays by a sort and a neighbour test (pure,
numpy only).

numpy >= 2 finds the values of a plain `np.unique` (no index, inverse or
counts asked for) through a hash table, and so do `np.union1d` and
`np.intersect1d` / `np.setdiff1d` without `assume_unique`: on our integer
arrays that is 10-100x slower than sorting and comparing neighbours, from
a thousand elements to millions. numpy 1.x sorted already; these helpers
give numpy's results under both (values and dtype; integers only: no NaN
handling).
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

_N = TypeVar("_N", bound=np.integer[Any])


def distinct(values: npt.NDArray[_N]) -> npt.NDArray[_N]:
    """`np.unique(values)`: the distinct values, ascending, flattened."""
    ordered = np.sort(values, axis=None)
    keep = np.empty(len(ordered), dtype=np.bool_)
    keep[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    found: npt.NDArray[_N] = ordered[keep]
    return found


def sorted_union(a: npt.NDArray[_N], b: npt.NDArray[_N]) -> npt.NDArray[_N]:
    """`np.union1d(a, b)`: the distinct values of either, ascending (in the
    dtype both promote to)."""
    return distinct(np.concatenate((a, b), axis=None))


def run_starts(sorted_values: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.int64]:
    """Where each run of equal values starts in a sorted array (for it,
    `np.unique(sorted_values, return_index=True)[1]`)."""
    if len(sorted_values) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]]).astype(np.int64)
