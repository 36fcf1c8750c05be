"""What the stored papers say about the files they came from: the load asks
for the files it left unparsed, usually none, and then must get nothing
without reading every paper's entries."""

from __future__ import annotations

import pytest

from paperbot.storage import papers
from paperbot.storage.backend import Database


@pytest.mark.parametrize("files", [[], ()])
async def test_no_files_give_nothing(loaded_db: Database, files: list[str]) -> None:
    assert await papers.file_contents(loaded_db, files) == (0, set())
    assert await papers.keys_by_file(loaded_db, files) == {}


@pytest.mark.parametrize("name", ["icml-2025.txt", "neurips-2023.txt"])
async def test_a_file_gives_its_papers(loaded_db: Database, name: str) -> None:
    count, keys = await papers.file_contents(loaded_db, [name])
    assert count >= len(keys) > 0
    assert await papers.keys_by_file(loaded_db, [name]) == {name: keys}
    assert await papers.file_contents(loaded_db, ["not-loaded.txt"]) == (0, set())
