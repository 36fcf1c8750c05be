"""What the incremental index reads, on both backends: the papers after an
id, and the watermark that says whether only papers were added."""

from __future__ import annotations

from pathlib import Path

from paperbot.storage import search_index
from paperbot.storage.db import Database
from tests.support.corpus import LoadPages

PAGE = "📚 预训练¶\n\n🧠 ICML2026 · 1 篇论文解读\n\n{title}: 这篇论文研究{title}。\n"


async def test_columns_after_an_id_and_the_watermark(
    loaded_db: Database, load_pages: LoadPages, tmp_path: Path
) -> None:
    everything = await search_index.paper_columns(loaded_db)
    last = everything.ids[-1]
    mark = await search_index.papers_up_to(loaded_db, last)
    assert mark == (len(everything.ids), 0)
    assert (await search_index.paper_columns(loaded_db, after_id=last)).ids == []
    page = tmp_path / "icml-2026-new.txt"
    page.write_text(PAGE.format(title="Quasar Lattice Tokenizers"), encoding="utf-8")
    await load_pages(loaded_db, page)
    added = await search_index.paper_columns(loaded_db, after_id=last)
    assert added.titles == ["Quasar Lattice Tokenizers"]
    assert await search_index.papers_up_to(loaded_db, last) == mark  # only added
    page.write_text(PAGE.format(title="Obsidian Curriculum Distillation"), encoding="utf-8")
    await load_pages(loaded_db, page, allow_shrink=True)  # the old paper is removed
    count, rewrites = await search_index.papers_up_to(loaded_db, last)
    assert (count, rewrites) == (mark[0], 1)
