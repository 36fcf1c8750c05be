"""`diagnose` reads the stored search index's version from its base and
segments: an index brought up to date by a segment is not stale."""

from __future__ import annotations

from pathlib import Path

from paperbot.bench.incremental import write_pages
from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.services.doctor import diagnose
from paperbot.services.search import SearchService
from paperbot.storage import papers
from paperbot.storage.db import Database
from tests.support.app import settings_for
from tests.support.corpus import load_pages


async def test_an_index_current_by_its_segment_is_not_stale(tmp_path: Path) -> None:
    # Few new papers on many: an append that changes the characters common
    # to a quarter of the summaries is built in full instead (`keeps_common`).
    items = synthetic_papers(1005)
    write_corpus(tmp_path / "base", items[:1000])
    write_pages(tmp_path / "more", items[1000:], "more")
    path = tmp_path / "paperbot.sqlite3"
    db = await Database.open(path)
    try:
        settings = settings_for(path).search
        await load_pages(db, tmp_path / "base", limits=BENCH_LIMITS)
        await SearchService(db, settings).refresh()
        await load_pages(db, tmp_path / "more", limits=BENCH_LIMITS)
        assert (await SearchService(db, settings).prepare_stored()).source == "appended"
        version = await papers.corpus_version(db)
    finally:
        await db.close()
    report = await diagnose(path)
    assert report.search_index_version == version
    assert not [note for note in report.notes if "stale" in note]
