"""What the incremental index reads, on both backends: the papers after an
id, and those a load changed after a corpus version (the watermark)."""

from __future__ import annotations

from pathlib import Path

from paperbot.storage import search_index
from paperbot.storage.db import Database
from paperbot.storage.papers import corpus_version
from tests.support.corpus import LoadPages

HEADER = "📚 预训练¶\n\n🧠 ICML2025 · 1 篇论文解读\n\n"
PAGE = "📚 预训练¶\n\n🧠 ICML2026 · 1 篇论文解读\n\n{title}: 这篇论文研究{title}。\n"


async def test_columns_after_an_id_and_the_papers_changed_since(
    loaded_db: Database, load_pages: LoadPages, tmp_path: Path
) -> None:
    everything = await search_index.paper_columns(loaded_db)
    last = everything.ids[-1]
    covered = await corpus_version(loaded_db)
    assert await search_index.changed_since(loaded_db, covered, last) == []
    assert (await search_index.paper_columns(loaded_db, after_id=last)).ids == []
    page = tmp_path / "icml-2026-new.txt"
    page.write_text(PAGE.format(title="Quasar Lattice Tokenizers"), encoding="utf-8")
    await load_pages(loaded_db, page)
    added = await search_index.paper_columns(loaded_db, after_id=last, changed_after=covered)
    assert added.titles == ["Quasar Lattice Tokenizers"]
    # Only added: nothing the index of `covered` holds changed.
    assert await search_index.changed_since(loaded_db, covered, last) == []
    newest = added.ids[0]
    page.write_text(PAGE.format(title="Obsidian Curriculum Distillation"), encoding="utf-8")
    await load_pages(loaded_db, page, allow_shrink=True)  # the old paper is removed
    assert await search_index.changed_since(loaded_db, covered, newest) == [newest]
    assert await search_index.changed_since(loaded_db, covered, last) == []
    # A changed summary is a change; the same text on another line is not.
    first = everything.ids[0]
    title, summary = everything.titles[0], everything.summaries[0]
    before = await corpus_version(loaded_db)
    moved = tmp_path / "moved.txt"
    moved.write_text(HEADER + f"\n{title}: {summary}\n", encoding="utf-8")
    assert (await load_pages(loaded_db, moved)).updated == 1  # its sources grew
    assert await search_index.changed_since(loaded_db, before, last) == []
    moved.write_text(HEADER + f"{title}: {summary}另外补充一句。\n", encoding="utf-8")
    await load_pages(loaded_db, moved)
    assert await search_index.changed_since(loaded_db, before, last) == [first]
    again = await search_index.paper_columns(loaded_db, after_id=newest, changed_after=before)
    assert first in again.ids
