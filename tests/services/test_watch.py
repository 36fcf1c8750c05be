"""The corpus watcher: new, changed and shrunk pages in the folder, and a
load by someone else, each followed by the search index."""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from paperbot.config import BUNDLED_CORPUS, CorpusSettings
from paperbot.services.app import App
from paperbot.services.watch import CorpusWatcher, folder_listing, listing_diff
from tests.support.app import FIXED_NOW, settings_for

HEADER = "📚 预训练¶\n\n🧠 NeurIPS2025 · {n} 篇论文解读\n\n"


def page(titles: list[str]) -> str:
    lines = [f"{t}: 这篇论文研究{t}的训练方法与缩放规律。" for t in titles]
    return HEADER.format(n=len(titles)) + "\n".join(lines) + "\n"


@pytest.fixture
async def watched(tmp_path: Path) -> AsyncIterator[tuple[App, CorpusWatcher, Path]]:
    folder = tmp_path / "corpus"
    shutil.copytree(BUNDLED_CORPUS, folder)
    base = settings_for(tmp_path / "paperbot.sqlite3")
    settings = base.model_copy(update={"corpus": CorpusSettings(path=folder, poll_seconds=0.1)})
    app = await App.open(settings)
    await app.corpus.load([folder], default_area="预训练", now=FIXED_NOW, startup=True)
    await app.prepare(topics=False)
    watcher = CorpusWatcher(app, lambda: FIXED_NOW)
    await watcher.start_from_current()
    yield app, watcher, folder
    await app.close()


async def titles_found(app: App, query: str) -> list[str]:
    result = await app.search.search(query, limit=5)
    return [h.paper.title for h in result.hits]


async def test_an_unchanged_folder_loads_nothing(
    watched: tuple[App, CorpusWatcher, Path],
) -> None:
    _app, watcher, _folder = watched
    result = await watcher.poll()
    assert result.report is None
    assert not result.version_changed


async def test_a_new_page_is_loaded_and_searchable(
    watched: tuple[App, CorpusWatcher, Path], caplog: pytest.LogCaptureFixture
) -> None:
    app, watcher, folder = watched
    before = await app.corpus.paper_count()
    (folder / "new-week.txt").write_text(
        page(["Quasar Lattice Tokenizers", "Zebrafish Gradient Routing"]), encoding="utf-8"
    )
    with caplog.at_level(logging.INFO, logger="paperbot.services.watch"):
        result = await watcher.poll()
    assert result.report is not None
    assert result.report.new == 2
    assert result.version_changed
    assert await app.corpus.paper_count() == before + 2
    assert "Quasar Lattice Tokenizers" in await titles_found(app, "quasar lattice")
    assert "2 new" in caplog.text
    assert "added: new-week.txt" in caplog.text


async def test_a_page_that_shrinks_sharply_is_held_back(
    watched: tuple[App, CorpusWatcher, Path], caplog: pytest.LogCaptureFixture
) -> None:
    app, watcher, folder = watched
    target = folder / "growing.txt"
    target.write_text(page([f"Holographic Sparse Attention Part {i}" for i in range(6)]), "utf-8")
    await watcher.poll()
    count = await app.corpus.paper_count()
    target.write_text(page(["Holographic Sparse Attention Part 0"]), encoding="utf-8")
    os.utime(target, ns=(1, 1))  # a different modification time, whatever the clock says
    with caplog.at_level(logging.WARNING, logger="paperbot.services.watch"):
        result = await watcher.poll()
    assert result.report is not None
    assert result.report.removed == 0
    assert await app.corpus.paper_count() == count
    assert "shrinks from 6 papers to 1" in caplog.text


async def test_a_load_by_someone_else_is_followed_by_the_index(
    watched: tuple[App, CorpusWatcher, Path], tmp_path: Path
) -> None:
    app, watcher, _folder = watched
    elsewhere = tmp_path / "manual"
    elsewhere.mkdir()
    (elsewhere / "manual.txt").write_text(page(["Obsidian Curriculum Distillation"]), "utf-8")
    # What an operator's `paperbot load` does to the same database.
    await app.corpus.load([elsewhere], default_area="预训练", now=FIXED_NOW)
    result = await watcher.poll()
    assert result.report is None
    assert result.version_changed
    assert app.search.last_status is not None
    assert app.search.last_status.corpus_version == await app.corpus.version()
    assert "Obsidian Curriculum Distillation" in await titles_found(app, "obsidian curriculum")


async def test_a_missing_folder_is_a_warning_not_a_crash(
    watched: tuple[App, CorpusWatcher, Path], caplog: pytest.LogCaptureFixture
) -> None:
    _app, watcher, folder = watched
    shutil.rmtree(folder)
    with caplog.at_level(logging.WARNING, logger="paperbot.services.watch"):
        result = await watcher.poll()
    assert result.report is None
    assert "no such file or folder" in caplog.text


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ((), (("/c/a.txt", 1, 1),), "added: a.txt"),
        ((("/c/a.txt", 1, 1),), (("/c/a.txt", 2, 1),), "changed: a.txt"),
        ((("/c/a.txt", 1, 1),), (), "gone: a.txt"),
        ((("/c/a.txt", 1, 1),), (("/c/a.txt", 1, 1),), "no file changes"),
    ],
)
def test_listing_diff_names_the_files(
    before: tuple[tuple[str, int, int], ...],
    after: tuple[tuple[str, int, int], ...],
    expected: str,
) -> None:
    assert listing_diff(before, after) == expected


def test_folder_listing_sees_size_and_time(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x", encoding="utf-8")
    first = folder_listing([tmp_path])
    (tmp_path / "a.txt").write_text("xy", encoding="utf-8")
    assert folder_listing([tmp_path]) != first
