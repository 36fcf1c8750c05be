"""A read-only sequence whose items are computed on first read and kept.

Search results are the use: ten pages of hits are kept, but a searcher
usually reads one or two, so a page (or a hit's highlight) is worked out
only when it is shown. Pure: no I/O; `make` may be any function of the index.

    pages = LazySequence(10, render_page)   # nothing rendered yet
    pages[0]                                # renders page 0, keeps it
    pages.computed()                        # -> 1

Not thread-safe to fill from two threads at once: one thread fills it
(e.g. a worker computing the first page), later reads happen on one loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar, overload

T = TypeVar("T")


class LazySequence(Sequence[T]):
    """`length` items, item `i` being `make(i)`, computed once when first read.

    Indexing follows `tuple`: negative indices count from the end, an index
    out of range raises `IndexError`, a slice returns a tuple (of computed
    items). Iteration, `in`, `index` and `count` come from `Sequence` and
    compute what they touch.
    """

    __slots__ = ("_computed", "_length", "_make")

    def __init__(self, length: int, make: Callable[[int], T]) -> None:
        if length < 0:
            raise ValueError(f"a sequence cannot have {length} items")
        self._length = length
        self._make = make
        # A dict, not a list of placeholders: most items are never read.
        self._computed: dict[int, T] = {}

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(self._length)))
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(f"index {index} out of range for {self._length} items")
        if index not in self._computed:
            self._computed[index] = self._make(index)
        return self._computed[index]

    def compute(self, count: int) -> None:
        """Compute the first `count` items now (clamped to the length)."""
        for i in range(min(max(0, count), self._length)):
            self[i]

    def computed(self) -> int:
        """How many items have been computed so far."""
        return len(self._computed)

    # It stands in for the tuple of its items (e.g. in a frozen dataclass):
    # equal to that tuple, hashing like it. Both compute every item.
    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazySequence | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.computed()} of {self._length} computed)"
