"""A new process follows the corpus from the stored index's watermark: the
papers a load added, changed or removed since the stored index's corpus
version are appended or marked dead, not rebuilt in full; dead entries are
compacted by a full build once they grow."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from paperbot.bench.incremental import write_pages
from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.core import search as core
from paperbot.services import search as search_service
from paperbot.services.app import App, open_database
from paperbot.storage import search_index as index_store
from tests.support.app import FIXED_NOW, settings_for

# As in test_search_append: at 5,000 + 1% no character crosses the common
# threshold, so following the corpus never has to build in full for that.
COUNT = 5000
CORAL = "珊瑚礁"


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """base: COUNT papers; more: 1% more; edited: base's first page with
    its first paper changed and its second removed."""
    folder = tmp_path_factory.mktemp("watermark")
    papers = synthetic_papers(COUNT + COUNT // 100)
    first = write_corpus(folder / "base", papers[:COUNT])[0]
    write_pages(folder / "more", papers[COUNT:], "more")
    lines = first.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if ": " in line and i > 3)
    lines[at] += f"另外补充{CORAL}一句。"
    del lines[at + 1]
    (folder / "edited").mkdir()
    (folder / "edited" / first.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def title_at(corpora: Path, offset: int) -> str:
    """The title of the `offset`-th paper of base's first page."""
    edited = next((corpora / "edited").glob("*.txt"))
    page = corpora / "base" / edited.name
    lines = page.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if ": " in line and i > 3)
    # Synthetic titles end with their serial (" S17") and may hold ": ".
    found = re.match(r"(.*? S\d+): ", lines[at + offset])
    assert found is not None
    return found.group(1)


async def load(app: App, *folders: Path) -> None:
    await app.corpus.load(list(folders), default_area="预训练", now=FIXED_NOW, limits=BENCH_LIMITS)


@pytest.fixture
async def stored(tmp_path: Path, corpora: Path) -> AsyncIterator[App]:
    """A database whose base papers were loaded and indexed by a process
    that is gone; the App handed out is a fresh one on it (a new process)."""
    settings = settings_for(tmp_path / "paperbot.sqlite3")
    first = await App.open(settings)
    await load(first, corpora / "base")
    await first.prepare(topics=False)
    await first.close()
    fresh = await App.open(settings)
    yield fresh
    await fresh.close()


async def titles(app: App, query: str, limit: int = 10) -> list[str]:
    return [h.paper.title for h in (await app.search.search(query, limit=limit)).hits]


async def test_a_new_process_appends_a_page_to_the_stored_index(stored: App, corpora: Path) -> None:
    await load(stored, corpora / "more", corpora / "edited")
    prepared = await stored.prepare(topics=False)
    assert prepared.index_source == "appended"
    index = await stored.search.ensure_index()
    assert index.live == await stored.corpus.paper_count() == COUNT + COUNT // 100 - 1
    assert len(index.dead) == 2  # the changed paper's old entry and the removed one
    assert any(t.endswith(f"S{COUNT}") for t in await titles(stored, f"S{COUNT}", 3))
    changed, removed = title_at(corpora, 0), title_at(corpora, 1)
    hits = (await stored.search.search(CORAL, limit=10)).hits
    assert [h.paper.title for h in hits] == [changed]
    assert set(index.ids[index.dead].tolist()) >= {hits[0].paper.id}
    assert len(set(index.ids[index.dead].tolist())) == 2
    assert (await titles(stored, changed, 50)).count(changed) == 1
    assert removed not in await titles(stored, removed, 50)

    # Stored again with its watermark: the next process reads it as it is.
    await stored.search.flush()
    again = await App.open(stored.settings)
    try:
        await again.search.refresh()
        assert again.search.last_status is not None
        assert again.search.last_status.source == "stored"
        assert len((await again.search.ensure_index()).dead) == 2
        assert await titles(again, CORAL) == [changed]
        assert removed not in await titles(again, removed, 50)
    finally:
        await again.close()


async def test_too_many_dead_entries_are_compacted_by_a_full_build(
    stored: App, corpora: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_service, "COMPACT_SHARE", 0.0)
    await load(stored, corpora / "edited")
    await stored.prepare(topics=False)
    assert stored.search.last_status is not None
    assert stored.search.last_status.source == "built"
    index = await stored.search.ensure_index()
    assert len(index.dead) == 0
    assert index.size == COUNT - 1


async def test_an_index_stored_without_a_watermark_is_built_again(
    stored: App, corpora: Path
) -> None:
    # What a paperbot from before the watermark stored: the arrays alone.
    db = await open_database(stored.settings.database.path)
    try:
        old = await index_store.load_index(db)
        assert old is not None
        arrays = {k: v for k, v in old.arrays.items() if k != search_service.WATERMARK}
        await index_store.save_index(
            db, arrays, corpus_version=old.corpus_version, format=core.INDEX_FORMAT
        )
    finally:
        await db.close()
    await load(stored, corpora / "more")
    prepared = await stored.prepare(topics=False)
    assert prepared.index_source == "built"
    assert any(t.endswith(f"S{COUNT}") for t in await titles(stored, f"S{COUNT}", 3))
