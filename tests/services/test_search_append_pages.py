"""Page after page: each added page is appended to the search index (the
watermark kept after an append is the appended index's own; with the
previous index's, every page after the first was rebuilt in full)."""

from __future__ import annotations

from pathlib import Path

from paperbot.bench.incremental import write_pages
from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.services.app import App
from tests.support.app import FIXED_NOW, settings_for

BASE = 20_000
"""Large enough that a page of 100 moves no character across the common
threshold, so each append applies (checked)."""
PAGE = 100


async def load(app: App, folder: Path) -> None:
    await app.corpus.load([folder], default_area="预训练", now=FIXED_NOW, limits=BENCH_LIMITS)


async def test_two_pages_in_a_row_are_both_appended(tmp_path: Path) -> None:
    papers = synthetic_papers(BASE + 2 * PAGE)
    write_corpus(tmp_path / "base", papers[:BASE])
    for number in range(2):
        chunk = papers[BASE + number * PAGE : BASE + (number + 1) * PAGE]
        write_pages(tmp_path / f"page{number}", chunk, f"page{number}")
    app = await App.open(settings_for(tmp_path / "paperbot.sqlite3"))
    try:
        await load(app, tmp_path / "base")
        await app.prepare(topics=False)
        for number in range(2):
            await load(app, tmp_path / f"page{number}")
            index = await app.search.refresh()
            assert app.search.last_status is not None
            assert app.search.last_status.source == "appended"
            assert index.size == BASE + (number + 1) * PAGE
    finally:
        await app.close()
