"""`core.lazy.LazySequence`: items computed on first read, once, indexed like a tuple."""

from __future__ import annotations

import pytest

from paperbot.core.lazy import LazySequence

LENGTH = 5


def squares() -> tuple[LazySequence[int], list[int]]:
    """A lazy sequence of i*i and the indices `make` was called with."""
    made: list[int] = []

    def make(index: int) -> int:
        made.append(index)
        return index * index

    return LazySequence(LENGTH, make), made


@pytest.mark.parametrize(
    ("index", "expected", "made"),
    [
        (0, 0, [0]),
        (4, 16, [4]),
        (-1, 16, [4]),
        (-5, 0, [0]),
        (slice(1, 3), (1, 4), [1, 2]),
        (slice(None, None, -2), (16, 4, 0), [4, 2, 0]),
        (slice(3, 99), (9, 16), [3, 4]),
        (slice(3, 1), (), []),
    ],
)
def test_indexing_like_a_tuple_computes_only_what_is_read(
    index: int | slice, expected: int | tuple[int, ...], made: list[int]
) -> None:
    sequence, calls = squares()
    assert sequence[index] == expected
    assert calls == made
    assert sequence.computed() == len(set(made))


@pytest.mark.parametrize("index", [LENGTH, -LENGTH - 1, 100])
def test_out_of_range_raises_index_error_without_computing(index: int) -> None:
    sequence, calls = squares()
    with pytest.raises(IndexError):
        sequence[index]
    assert calls == []


@pytest.mark.parametrize(
    ("reads", "made"),
    [
        ([2, 2, -3], [2]),  # the same item, three ways: computed once
        ([0, 1, 0, 1], [0, 1]),
    ],
)
def test_each_item_is_computed_once(reads: list[int], made: list[int]) -> None:
    sequence, calls = squares()
    values = [sequence[i] for i in reads]
    assert values == [i % LENGTH * (i % LENGTH) for i in reads]
    assert calls == made


@pytest.mark.parametrize(
    ("count", "computed"),
    [(-1, 0), (0, 0), (2, 2), (LENGTH, LENGTH), (LENGTH + 3, LENGTH)],
)
def test_compute_fills_a_prefix(count: int, computed: int) -> None:
    sequence, calls = squares()
    sequence.compute(count)
    assert sequence.computed() == computed
    assert calls == list(range(computed))
    assert repr(sequence) == f"LazySequence({computed} of {LENGTH} computed)"


def test_sequence_protocol_comes_for_free() -> None:
    sequence, calls = squares()
    assert len(sequence) == LENGTH
    assert calls == []
    assert list(sequence) == [0, 1, 4, 9, 16]
    assert 9 in sequence
    assert 10 not in sequence
    assert sequence.index(4) == 2
    assert next(reversed(sequence)) == 16
    assert calls == [0, 1, 2, 3, 4]  # reading everything again computed nothing more


def test_empty_and_negative_lengths() -> None:
    empty: LazySequence[int] = LazySequence(0, lambda i: i)
    assert len(empty) == 0
    assert list(empty) == []
    assert not empty
    with pytest.raises(ValueError, match="-1 items"):
        LazySequence(-1, lambda i: i)
