"""A load never loses data: shrink guard, stable paper identity, pages from elsewhere."""

from __future__ import annotations

import logging
import os
from datetime import timedelta
from pathlib import Path

import pytest

from paperbot.bot.runner import open_app
from paperbot.config import CorpusSettings
from paperbot.storage import digests, papers
from paperbot.storage.db import Database
from tests.support.app import FIXED_NOW, settings_for
from tests.support.corpus import HEADER, TITLES, LoadPages, page, write
from tests.support.digest import DAY, MESSAGE, ensure_digest_schema


async def titles(db: Database) -> set[str]:
    return {p.title for p in await papers.list_papers(db)}


@pytest.mark.parametrize(
    ("after", "why"),
    [
        ("", "an emptied page"),
        (HEADER.format(n=4), "a header-only page"),
        (page("Alpha Paper"), "a page that lost 3 of its 4 papers"),
    ],
    ids=["empty", "header-only", "lost-3-of-4"],
)
async def test_a_sharply_shrunk_page_is_held_back(
    db: Database, tmp_path: Path, after: str, why: str, load_pages: LoadPages
) -> None:
    path = write(tmp_path / "icml-2025.txt", page(*TITLES))
    await load_pages(db, path)
    write(path, after)
    report = await load_pages(db, path)
    assert not report.clean, why
    assert report.removed == 0
    assert "shrinks" in str(report.problems[0])
    assert "--allow-shrink" in str(report.problems[0])
    assert await titles(db) == set(TITLES)
    # The corpus state has not changed, so a retry says the same thing.
    assert not (await load_pages(db, path)).clean


async def test_allow_shrink_applies_the_page(
    db: Database, tmp_path: Path, load_pages: LoadPages
) -> None:
    path = write(tmp_path / "icml-2025.txt", page(*TITLES))
    await load_pages(db, path)
    write(path, "")
    report = await load_pages(db, path, allow_shrink=True)
    assert report.clean
    assert report.removed == 4
    assert await titles(db) == set()


async def test_losing_half_or_less_is_applied(
    db: Database, tmp_path: Path, load_pages: LoadPages
) -> None:
    path = write(tmp_path / "icml-2025.txt", page(*TITLES))
    await load_pages(db, path)
    write(path, page("Alpha Paper", "Beta Paper"))
    report = await load_pages(db, path)
    assert report.clean
    assert report.removed == 2


async def test_a_removed_paper_keeps_its_history_and_identity(
    db: Database, tmp_path: Path, load_pages: LoadPages
) -> None:
    await ensure_digest_schema(db)
    path = write(tmp_path / "icml-2025.txt", page(*TITLES))
    await load_pages(db, path)
    before = {p.title: p.id for p in await papers.list_papers(db)}
    await digests.claim(
        db,
        guild_id=1,
        channel_id=2,
        kind="scheduled",
        local_date=DAY,
        nonce="n1",
        message=MESSAGE,
        paper_ids=[before["Delta Paper"]],
        now=FIXED_NOW,
        deadline=FIXED_NOW + timedelta(hours=15),
    )
    write(path, page(*TITLES[:3]))
    assert (await load_pages(db, path)).removed == 1
    assert "Delta Paper" not in await titles(db)
    assert await papers.paper_count(db) == 3
    # A retired paper is not served, but the channel's history about it stays.
    assert await papers.get_papers(db, [before["Delta Paper"]]) == []
    assert await digests.posted_ids(db, 2) == [before["Delta Paper"]]

    write(path, page(*TITLES))
    report = await load_pages(db, path)
    assert report.new == 1
    assert {p.title: p.id for p in await papers.list_papers(db)} == before
    assert await digests.posted_ids(db, 2) == [before["Delta Paper"]]
    post = await digests.scheduled_post(db, 1, DAY)
    assert post is not None
    assert post.paper_ids == (before["Delta Paper"],)


async def test_an_unchanged_page_with_a_bad_line_fails_every_time(
    db: Database, tmp_path: Path, load_pages: LoadPages
) -> None:
    path = write(tmp_path / "icml-2025.txt", page(*TITLES) + "没有分隔符的一行\n")
    first = await load_pages(db, path)
    second = await load_pages(db, path)
    assert [str(p) for p in first.problems] == [str(p) for p in second.problems]
    assert not second.clean


def set_mtime(path: Path, seconds_after_now: float) -> None:
    stamp = FIXED_NOW.timestamp() + seconds_after_now
    os.utime(path, (stamp, stamp))


async def test_replacing_a_page_loaded_from_elsewhere_is_reported(
    db: Database, tmp_path: Path, caplog: pytest.LogCaptureFixture, load_pages: LoadPages
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = write(tmp_path / "a" / "icml-2025.txt", page(*TITLES))
    second = write(tmp_path / "b" / "icml-2025.txt", page(*TITLES[:3], "Epsilon Paper"))
    await load_pages(db, first)
    with caplog.at_level(logging.INFO, logger="paperbot.services.corpus"):
        report = await load_pages(db, second)
    expected = f"replacing icml-2025.txt loaded from {first.resolve()}"
    assert any(note.startswith(expected) for note in report.notes), report.notes
    assert expected in caplog.text


async def test_startup_load_never_undoes_a_newer_manual_load(
    db: Database, tmp_path: Path, caplog: pytest.LogCaptureFixture, load_pages: LoadPages
) -> None:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "elsewhere").mkdir()
    folder_copy = write(tmp_path / "corpus" / "icml-2025.txt", page(*TITLES))
    manual = write(tmp_path / "elsewhere" / "icml-2025.txt", page(*TITLES, "Epsilon Paper"))
    set_mtime(folder_copy, -3600)  # the folder's file is older than the manual load
    await load_pages(db, manual)
    with caplog.at_level(logging.WARNING, logger="paperbot.services.corpus"):
        report = await load_pages(db, tmp_path / "corpus", startup=True)
    assert report.removed == 0
    assert "Epsilon Paper" in await titles(db)
    assert f"paperbot load {folder_copy.resolve()}" in caplog.text

    # A folder file changed after the manual load is newer: the start-up load applies it.
    set_mtime(folder_copy, 3600)
    report = await load_pages(db, tmp_path / "corpus", startup=True)
    assert report.removed == 1
    assert any("replacing icml-2025.txt" in note for note in report.notes)


async def test_the_bots_start_up_load_never_applies_a_shrunk_page(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    path = write(folder / "icml-2025.txt", page(*TITLES))
    settings = settings_for(tmp_path / "bot.sqlite3").model_copy(
        update={"corpus": CorpusSettings(path=folder)}
    )
    app = await open_app(settings)
    await app.close()
    write(path, "")
    with caplog.at_level(logging.WARNING, logger="paperbot.services.corpus"):
        app = await open_app(settings)
    try:
        assert {p.title for p in await app.corpus.list_papers()} == set(TITLES)
        assert "--allow-shrink" in caplog.text
    finally:
        await app.close()
