"""A `paperbot load` that appends papers which move a character across the
common threshold (`COMMON_DF`): the segment it would store could not be
replayed (a full build drops that character's unigrams, the stored base
does not), so the load sees it from the character counts stored with the
base and segments and builds in full instead; the next process then reads
the stored index as it is, and every search answers as after a full build.
On both backends (`db`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperbot.bench.incremental import write_pages
from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.services import search_store
from paperbot.services.paper_texts import PaperTexts
from paperbot.services.search import SearchService
from paperbot.storage.backend import Database
from paperbot.storage.db import Database as SqliteDatabase
from tests.support.app import settings_for
from tests.support.corpus import load_pages

BASE = 200
QUERIES = ("熵", "熵的研究", "扩散模型", "scaling law", "Entropy Study", "reinforcement learning")


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A base of `BASE` papers; `flood`: 80 papers that all say 熵 (a
    character the base hardly has), so it passes a quarter of all summaries;
    `few`: 10 such papers, which do not."""
    folder = tmp_path_factory.mktemp("common")
    papers = synthetic_papers(BASE + 100)
    write_corpus(folder / "base", papers[:BASE])
    flood = [(f"Entropy Study E{i}", f"{s}熵的研究。") for i, (_, s) in enumerate(papers[BASE:])]
    write_pages(folder / "few", flood[:10], "few")
    write_pages(folder / "flood", flood[10:90], "flood")
    return folder


def service(db: Database, tmp_path: Path) -> SearchService:
    return SearchService(db, settings_for(tmp_path / "unused.sqlite3").search)


async def answers(search: SearchService) -> list[list[tuple[int, float]]]:
    found = []
    for query in QUERIES:
        result = await search.search(query, limit=30)
        found.append([(h.paper.id, round(h.score, 9)) for h in result.hits])
    return found


async def full_build_answers(
    corpora: Path, tmp_path: Path, *pages: str
) -> list[list[tuple[int, float]]]:
    """The answers of an index built in full over the same loads (same ids)."""
    db = await SqliteDatabase.open(tmp_path / "full.sqlite3")
    try:
        for name in ("base", *pages):
            await load_pages(db, corpora / name, limits=BENCH_LIMITS)
        search = service(db, tmp_path)
        await search.refresh()
        assert search.last_status is not None
        assert search.last_status.source == "built"
        return await answers(search)
    finally:
        await db.close()


@pytest.mark.parametrize(
    ("pages", "load_source", "worker"),
    [
        pytest.param(("few",), ("appended",), False, id="below-the-threshold"),
        pytest.param(("flood",), ("built",), False, id="crossing"),
        pytest.param(("flood",), ("built",), True, id="crossing-built-by-the-loads-worker"),
        pytest.param(("few", "flood"), ("appended", "built"), False, id="crossing-on-a-segment"),
    ],
)
async def test_an_append_that_moves_a_common_character_builds_in_full(
    db: Database,
    corpora: Path,
    tmp_path: Path,
    pages: tuple[str, ...],
    load_source: tuple[str, ...],
    worker: bool,
) -> None:
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    await service(db, tmp_path).refresh()  # the base stored
    sources = []
    for name in pages:
        await load_pages(db, corpora / name, limits=BENCH_LIMITS)
        texts = PaperTexts(db)
        try:  # `paperbot load`: a new process, its full build stored by `texts`' worker
            status = await service(db, tmp_path).prepare_stored(
                texts.store_search_index if worker else None
            )
        finally:
            texts.close()
        sources.append(status.source)
    assert tuple(sources) == load_source
    restarted = service(db, tmp_path)
    got = await answers(restarted)
    assert restarted.last_status is not None
    assert restarted.last_status.source == "stored"  # no build left for the next start
    state = await search_store.current_state(db)
    assert state is not None
    assert len(state.segments) == (1 if load_source[-1] == "appended" else 0)
    assert got == await full_build_answers(corpora, tmp_path, *pages)
    assert got[0]  # 熵 is found
