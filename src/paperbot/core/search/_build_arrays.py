"""The index of a load's papers built straight into its stored arrays,
a named array at a time (`iter_index_arrays`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from paperbot.core.search._build import _title_text, build_field
from paperbot.core.search._persist import PackedTexts, pack_texts


class ParkedTexts(Protocol):
    """A field's packed texts (`pack_texts`) while its postings are built:
    `texts` reads them back (`PackedTexts`), `take` hands the packed array
    over (once) to be stored."""

    @property
    def texts(self) -> Sequence[str]: ...

    def take(self) -> NDArray[np.uint8]: ...


class KeptTexts:
    """`ParkedTexts` in memory, as packed."""

    def __init__(self, packed: NDArray[np.uint8]) -> None:
        self._packed = packed
        self.texts = PackedTexts(packed)

    def take(self) -> NDArray[np.uint8]:
        return self._packed


def iter_index_arrays(
    *,
    ids: list[int],
    titles: list[str],
    venues: list[str],
    years: list[int],
    summaries: list[str],
    normal_titles: list[str],
    between: Callable[[], object] = lambda: None,
    park: Callable[[NDArray[np.uint8]], ParkedTexts] = KeptTexts,
) -> Iterator[tuple[str, NDArray[Any]]]:
    """`to_arrays(build_index_columns(...))` of papers whose summaries and
    titles are normalised already (a load's), a named array at a time, each
    let go once yielded (a writer stores it before asking for the next): a field's
    postings and packed texts are yielded as soon as that field is built,
    so the finished arrays never pile up. Every list given is consumed
    (emptied) into arrays, the texts packed before any postings are built,
    and each field indexed from its packed form (`PackedTexts`), so no
    string of the papers is held while the postings are. `between` is
    called once the strings are let go and after each field (the caller
    hands freed memory back to the system). Each field's packed texts are
    `park`ed until stored (a caller may keep them out of memory while the
    postings are built: `KeptTexts` holds them), and so are the batches a
    field's first pass keeps for its second (`build_field`)."""
    venue_names = tuple(sorted(set(venues)))
    venue_code = {v: i for i, v in enumerate(venue_names)}
    yield "ids", np.array(ids, dtype=np.int64)
    yield "years", np.array(years, dtype=np.int32)
    yield "venue_codes", np.array([venue_code[v] for v in venues], dtype=np.int32)
    yield "venues", pack_texts(venue_names)
    title_texts = [_title_text(t, n) for t, n in zip(titles, normal_titles, strict=True)]
    for column in (ids, years, venues, titles, normal_titles):
        column.clear()
    parked = {
        "titles": park(pack_texts(title_texts, consume=True)),
        "summaries": park(pack_texts(summaries, consume=True)),
    }
    title_texts.clear()
    summaries.clear()
    between()
    for name, texts in (("title", "titles"), ("summary", "summaries")):
        yield from _field_arrays(name, parked[texts].texts, between, park)
        # Its texts last: the field's postings were built from them.
        yield texts, parked.pop(texts).take()
        between()
    yield "dead", np.zeros(0, dtype=np.int64)


def _field_arrays(
    name: str,
    texts: Sequence[str],
    between: Callable[[], object],
    park: Callable[[NDArray[np.uint8]], ParkedTexts],
) -> Iterator[tuple[str, NDArray[Any]]]:
    """One field's postings (`build_field`, its first pass's chunks `park`ed
    for its second), each array let go once yielded."""
    field = build_field(texts, between=between, park=park)
    parts: dict[str, NDArray[Any]] = {
        "keys": field.keys,
        "indptr": field.indptr,
        "docs": field.docs,
        "common": field.common,
    }
    del field
    for part in list(parts):
        yield f"{name}_{part}", parts.pop(part)
