"""The topic corpus shares the search index's table: each scope is saved,
read and versioned on its own (on both backends)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from paperbot.storage import search_index
from paperbot.storage.backend import Database


async def test_scopes_are_saved_and_read_apart(db: Database) -> None:
    await search_index.save_index(
        db, {"ids": np.arange(3, dtype=np.int64)}, corpus_version=4, format=2
    )
    big = np.arange(search_index.PART_BYTES // 4 + 10, dtype=np.int32)  # stored in parts
    arrays: dict[str, NDArray[Any]] = {"ids": np.arange(5, dtype=np.int64), "docs": big}
    await search_index.save_index(
        db,
        arrays,
        corpus_version=7,
        format=1,
        scope="topics",
    )
    assert await search_index.stored_version(db) == (4, 2)
    assert await search_index.stored_version(db, "topics") == (7, 1)
    index = await search_index.load_index(db)
    topics = await search_index.load_index(db, "topics")
    assert index is not None
    assert topics is not None
    assert index.arrays.keys() == {"ids"}
    assert index.arrays["ids"].tolist() == [0, 1, 2]
    assert topics.arrays.keys() == {"ids", "docs"}
    assert np.array_equal(topics.arrays["docs"], big)
    # Saving one scope again leaves the other alone.
    await search_index.save_index(
        db, {"ids": np.arange(2, dtype=np.int64)}, corpus_version=5, format=2
    )
    assert await search_index.stored_version(db, "topics") == (7, 1)
    again = await search_index.load_index(db, "topics")
    assert again is not None
    assert again.arrays["ids"].tolist() == [0, 1, 2, 3, 4]


async def test_an_unknown_scope_is_refused(db: Database) -> None:
    with pytest.raises(ValueError, match="scope"):
        await search_index.stored_version(db, "votes")
