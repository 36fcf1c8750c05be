"""The search index follows a load incrementally: added papers are
appended; a changed paper is appended again, its old entry marked dead."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from paperbot.bench.incremental import write_pages
from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.services.app import App
from tests.support.app import FIXED_NOW, settings_for

# 5,000 + 1%: no character crosses the common threshold (checked), so the
# append applies (when one does, a full build is the right answer).
COUNT = 5000


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("append")
    papers = synthetic_papers(COUNT + COUNT // 100)
    write_corpus(folder / "base", papers[:COUNT])
    write_pages(folder / "more", papers[COUNT:], "more")
    return folder


@pytest.fixture
async def app(tmp_path: Path, corpora: Path) -> AsyncIterator[App]:
    opened = await App.open(settings_for(tmp_path / "paperbot.sqlite3"))
    await load(opened, corpora / "base")
    await opened.prepare(topics=False)
    yield opened
    await opened.close()


async def load(app: App, folder: Path) -> None:
    await app.corpus.load([folder], default_area="预训练", now=FIXED_NOW, limits=BENCH_LIMITS)


async def test_added_papers_are_appended_and_found(app: App, corpora: Path) -> None:
    await load(app, corpora / "more")
    index = await app.search.refresh()
    assert app.search.last_status is not None
    assert app.search.last_status.source == "appended"
    assert index.size == await app.corpus.paper_count()
    found = await app.search.search(f"S{COUNT}", limit=3)
    assert any(h.paper.title.endswith(f"S{COUNT}") for h in found.hits)


async def test_the_appended_index_answers_like_a_rebuilt_one(
    app: App, corpora: Path, tmp_path: Path
) -> None:
    await load(app, corpora / "more")
    await app.search.refresh()
    await app.search.flush()
    fresh = await App.open(settings_for(tmp_path / "fresh.sqlite3"))
    try:
        await load(fresh, corpora / "base")
        await load(fresh, corpora / "more")
        await fresh.prepare(topics=False)
        for query in ("speculative decoding", "数据去重", "MoE 路由", "shampo optimizer"):
            ours = await app.search.search(query, limit=10)
            theirs = await fresh.search.search(query, limit=10)
            assert [h.paper.title for h in ours.hits] == [h.paper.title for h in theirs.hits]
    finally:
        await fresh.close()


async def test_the_appended_index_is_stored_for_the_next_start(app: App, corpora: Path) -> None:
    await load(app, corpora / "more")
    await app.search.refresh()
    await app.search.flush()
    again = await App.open(app.settings)
    try:
        await again.search.refresh()
        assert again.search.last_status is not None
        assert again.search.last_status.source == "stored"
    finally:
        await again.close()


async def test_a_changed_paper_leaves_a_dead_entry_not_a_rebuild(
    app: App, corpora: Path, tmp_path: Path
) -> None:
    page = sorted((corpora / "base").glob("*.txt"))[0]
    changed = tmp_path / "changed"
    changed.mkdir()
    lines = page.read_text(encoding="utf-8").splitlines()
    # Change one paper's summary: the index holds its old text.
    for at, line in enumerate(lines):
        if ": " in line and at > 3:
            title = line.split(": ", 1)[0]
            lines[at] = line + "另外补充珊瑚礁一句。"
            break
    (changed / page.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    before = await app.search.refresh()
    await load(app, changed)
    index = await app.search.refresh()
    assert app.search.last_status is not None
    assert app.search.last_status.source == "appended"
    assert index.size == before.size + 1
    assert len(index.dead) == 1
    found = await app.search.search("珊瑚礁", limit=10)
    assert [h.paper.title for h in found.hits] == [title]
    # The old entry of that paper is never a second hit.
    by_title = await app.search.search(title, limit=50)
    assert [h.paper.title for h in by_title.hits].count(title) == 1
