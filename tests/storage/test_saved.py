"""Saved papers: toggling, listing newest first, surviving corpus changes."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from paperbot.services.app import App
from paperbot.storage import papers, saved
from paperbot.storage.db import Database
from tests.support.app import FIXED_NOW
from tests.support.corpus import LoadPages, page, write

GUILD, USER, OTHER = 1, 10, 11


async def test_toggle_saves_then_unsaves(loaded_app: App) -> None:
    library = loaded_app.library
    assert await library.toggle_saved(GUILD, USER, 1, FIXED_NOW) is True
    assert await library.saved_ids(GUILD, USER) == {1}
    assert await library.toggle_saved(GUILD, USER, 1, FIXED_NOW) is False
    assert await library.saved_ids(GUILD, USER) == set()


async def test_unknown_paper_is_none(loaded_app: App) -> None:
    assert await loaded_app.library.toggle_saved(GUILD, USER, 999_999, FIXED_NOW) is None
    assert await loaded_app.library.saved_papers(GUILD, USER) == []


async def test_saved_is_per_reader_and_server(loaded_app: App) -> None:
    await loaded_app.library.toggle_saved(GUILD, USER, 1, FIXED_NOW)
    assert await loaded_app.library.saved_ids(GUILD, OTHER) == set()
    assert await loaded_app.library.saved_ids(GUILD + 1, USER) == set()


async def test_listed_newest_first(loaded_app: App) -> None:
    for offset, paper_id in enumerate((3, 1, 2)):
        await loaded_app.library.toggle_saved(
            GUILD, USER, paper_id, FIXED_NOW + timedelta(minutes=offset)
        )
    listed = await loaded_app.library.saved_papers(GUILD, USER)
    assert [s.paper.id for s in listed] == [2, 1, 3]
    assert listed[0].saved_at == FIXED_NOW + timedelta(minutes=2)


async def test_unsave(loaded_app: App) -> None:
    await loaded_app.library.toggle_saved(GUILD, USER, 2, FIXED_NOW)
    assert await loaded_app.library.unsave(GUILD, USER, 2) is True
    assert await loaded_app.library.unsave(GUILD, USER, 2) is False


async def test_saved_paper_survives_its_paper_leaving_the_page(
    db: Database, tmp_path: Path, load_pages: LoadPages
) -> None:
    path = write(tmp_path / "icml-2025.txt", page("Alpha Paper", "Beta Paper", "Gamma Paper"))
    await load_pages(db, path)
    gamma = next(p.id for p in await papers.list_papers(db) if p.title == "Gamma Paper")
    await saved.toggle(db, GUILD, USER, gamma, FIXED_NOW)
    write(path, page("Alpha Paper", "Beta Paper"))
    assert (await load_pages(db, path)).removed == 1
    listed = await saved.list_saved(db, GUILD, USER)
    assert [(s.paper.id, s.retired) for s in listed] == [(gamma, True)]
