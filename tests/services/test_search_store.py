"""The stored search index as a base plus append-only segments: an append
in a new process writes only its segment (never the base), loading base and
segments equals the index appended in-process (each segment replayed with
the common characters its stored counts give), a full build stored by a
load's worker process equals one built here (and the load holds none), a
full save compacts the segments away, and a process killed mid-append leaves the previous state
readable. On both backends (`db`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paperbot.bench.incremental import write_pages
from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.core import search as core
from paperbot.services import search_store, workers
from paperbot.services.paper_texts import PaperTexts
from paperbot.services.search import SearchService
from paperbot.storage import index_segments
from paperbot.storage import search_index as index_store
from paperbot.storage.backend import Database
from paperbot.storage.search_index import StoredIndex
from tests.support.app import settings_for
from tests.support.corpus import load_pages

# 1,500 + 1% twice: no character crosses the common threshold, so the
# segments replay (a crossing would build in full: the right answer then).
COUNT = 1500
STEP = COUNT // 100
QUERIES = ("scaling law", "扩散模型", f"S{COUNT + 3}", "reinforcement learning agents")


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("segments")
    papers = synthetic_papers(COUNT + 2 * STEP)
    write_corpus(folder / "base", papers[:COUNT])
    for name, part in (("one", papers[COUNT : COUNT + STEP]), ("two", papers[COUNT + STEP :])):
        write_pages(folder / name, part, name)
    return folder


def service(db: Database, tmp_path: Path) -> SearchService:
    return SearchService(db, settings_for(tmp_path / "unused.sqlite3").search)


async def table_bytes(db: Database, table: str) -> tuple[int, int]:
    """(rows, bytes of data) of one table."""
    row = await db.fetch_one(f"SELECT COUNT(*), COALESCE(SUM(LENGTH(data)), 0) FROM {table}")
    assert row is not None
    return int(row[0]), int(row[1])


async def base_rows(db: Database) -> list[tuple[str, int, int]]:
    rows = await db.fetch_all("SELECT name, corpus_version, LENGTH(data) FROM search_index")
    return sorted((str(r[0]), int(r[1]), int(r[2])) for r in rows)


def assert_same_index(ours: core.SearchIndex, theirs: core.SearchIndex) -> None:
    a, b = core.to_arrays(ours), core.to_arrays(theirs)
    assert a.keys() == b.keys()
    for name in a:
        assert np.array_equal(a[name], b[name]), name


async def answers(search: SearchService) -> list[list[tuple[int, float]]]:
    found = []
    for query in QUERIES:
        result = await search.search(query, limit=20)
        found.append([(h.paper.id, round(h.score, 9)) for h in result.hits])
    return found


async def stored_base(db: Database, corpora: Path, tmp_path: Path) -> SearchService:
    """The base papers loaded and their index stored; the service that did
    it (still holding the index in memory: the in-process side)."""
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    search = service(db, tmp_path)
    await search.refresh()
    return search


async def test_an_append_in_a_new_process_writes_only_its_segment(
    db: Database, corpora: Path, tmp_path: Path
) -> None:
    await stored_base(db, corpora, tmp_path)
    base = await base_rows(db)
    _, base_bytes = await table_bytes(db, "search_index")
    for number, name in enumerate(("one", "two"), start=1):
        await load_pages(db, corpora / name, limits=BENCH_LIMITS)
        status = await service(db, tmp_path).prepare_stored()  # a new process
        assert (status.source, status.papers) == ("appended", COUNT + number * STEP)
        assert await base_rows(db) == base  # the base is not written again
        state = await search_store.current_state(db)
        assert state is not None
        assert len(state.segments) == number
        assert state.version == status.corpus_version
    rows, segment_bytes = await table_bytes(db, "index_segments")
    assert rows == 2 * 9  # each segment: its six arrays, its watermark and two counts
    assert segment_bytes < 0.05 * base_bytes


async def test_base_and_segments_load_as_the_index_appended_in_process(
    db: Database, corpora: Path, tmp_path: Path
) -> None:
    in_process = await stored_base(db, corpora, tmp_path)
    for name in ("one", "two"):
        await load_pages(db, corpora / name, limits=BENCH_LIMITS)
        await service(db, tmp_path).prepare_stored()
    appended = await in_process.refresh()
    assert in_process.last_status is not None
    assert in_process.last_status.source == "appended"
    await in_process.flush()  # nothing to store: this version is stored already
    assert (await table_bytes(db, "index_segments"))[0] == 2 * 9
    restarted = service(db, tmp_path)
    loaded = await restarted.refresh()
    assert restarted.last_status is not None
    assert restarted.last_status.source == "stored"
    assert_same_index(loaded, appended)
    assert await answers(restarted) == await answers(in_process)


async def test_segments_replay_with_the_common_characters_their_counts_give(
    db: Database, corpora: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await stored_base(db, corpora, tmp_path)
    for name in ("one", "two"):
        await load_pages(db, corpora / name, limits=BENCH_LIMITS)
        await service(db, tmp_path).prepare_stored()
    given: list[list[list[int]] | None] = []
    update_papers = core.update_papers

    def replay(index: core.SearchIndex, **columns: Any) -> core.SearchIndex | None:
        common = columns["common"]
        given.append(None if common is None else [c.tolist() for c in common])
        return update_papers(index, **columns)

    monkeypatch.setattr(core, "update_papers", replay)
    loaded = await service(db, tmp_path).refresh()
    # Read from the stored counts, not counted again: what a count over
    # the replayed index's texts finds.
    counted = [core.common_cjk_chars(t).tolist() for t in (loaded.titles, loaded.summaries)]
    assert given[-1] == counted
    assert len(given) == 2
    assert given[0] is not None


async def test_an_append_in_process_is_stored_as_a_segment(
    db: Database, corpora: Path, tmp_path: Path
) -> None:
    search = await stored_base(db, corpora, tmp_path)
    base = await base_rows(db)
    await load_pages(db, corpora / "one", limits=BENCH_LIMITS)
    appended = await search.refresh()
    await search.flush()
    assert await base_rows(db) == base
    assert (await table_bytes(db, "index_segments"))[0] == 9
    assert_same_index(await service(db, tmp_path).refresh(), appended)


async def test_past_the_segment_limit_a_full_save_compacts_them(
    db: Database, corpora: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_store, "SEGMENT_LIMIT", 1)
    in_process = await stored_base(db, corpora, tmp_path)
    await load_pages(db, corpora / "one", limits=BENCH_LIMITS)
    assert (await service(db, tmp_path).prepare_stored()).source == "appended"
    await load_pages(db, corpora / "two", limits=BENCH_LIMITS)
    loader = service(db, tmp_path)
    await loader.prepare_stored()
    await loader.flush()
    assert await table_bytes(db, "index_segments") == (0, 0)
    state = await search_store.current_state(db)
    assert state is not None
    assert state.segments == ()
    assert_same_index(await service(db, tmp_path).refresh(), await in_process.refresh())


async def test_an_append_on_a_stored_state_that_moved_on_stores_nothing(
    db: Database, corpora: Path, tmp_path: Path
) -> None:
    await stored_base(db, corpora, tmp_path)
    await load_pages(db, corpora / "one", limits=BENCH_LIMITS)
    before = await search_store.current_state(db)
    assert before is not None
    await service(db, tmp_path).prepare_stored()  # another process appended meanwhile
    written = await table_bytes(db, "index_segments")
    segment = {"removed": np.zeros(0, dtype=np.int64)}
    assert not await index_segments.append_segment(
        db, "index", before, segment, corpus_version=before.version + 1
    )
    assert await table_bytes(db, "index_segments") == written


async def test_a_full_build_stored_by_the_loads_worker_equals_one_built_here(
    db: Database, corpora: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workers, "WORKER_THRESHOLD", 1)  # a worker process, as at scale
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    loader, texts = service(db, tmp_path), PaperTexts(db)
    try:
        status = await loader.prepare_stored(texts.store_search_index)
    finally:
        texts.close()
    assert (status.source, status.papers) == ("built", COUNT)
    assert not await loader.is_current()  # the loading process never held the index
    state = await search_store.current_state(db)
    assert state is not None
    columns = await index_store.paper_columns(db)
    mark = (status.corpus_version, columns.ids[-1], COUNT, 0)
    assert await search_store.latest_mark(db, state) == mark
    here = core.build_index_columns(
        ids=columns.ids,
        titles=columns.titles,
        venues=columns.venues,
        years=columns.years,
        summaries=columns.summaries,
    )
    restarted = service(db, tmp_path)
    assert_same_index(await restarted.refresh(), here)
    assert restarted.last_status is not None
    assert restarted.last_status.source == "stored"
    # The worker's watermark lets the next load append a segment to it.
    await load_pages(db, corpora / "one", limits=BENCH_LIMITS)
    appended = await service(db, tmp_path).prepare_stored(texts.store_search_index)
    assert (appended.source, appended.papers) == ("appended", COUNT + STEP)


async def test_a_reader_whose_state_is_compacted_meanwhile_reads_again(
    db: Database, corpora: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    in_process = await stored_base(db, corpora, tmp_path)
    await load_pages(db, corpora / "one", limits=BENCH_LIMITS)
    await service(db, tmp_path).prepare_stored()  # base + one segment
    appended = await in_process.refresh()
    real = index_segments.load_with_segments
    read: list[index_segments.StoredState] = []

    async def compacted_first(
        db: Database, scope: str, state: index_segments.StoredState
    ) -> tuple[StoredIndex, list[index_segments.Segment]] | None:
        read.append(state)
        if len(read) == 1:  # another process saves the same version whole meanwhile
            mark = search_store.watermark(appended, state.version)
            await index_store.save_index(
                db,
                [*core.iter_arrays(appended), (search_store.WATERMARK, mark)],
                corpus_version=state.version,
                format=core.INDEX_FORMAT,
            )
        return await real(db, scope, state)

    monkeypatch.setattr(index_segments, "load_with_segments", compacted_first)
    reader = service(db, tmp_path)
    loaded = await reader.refresh()
    assert reader.last_status is not None
    assert reader.last_status.source == "stored"
    assert [len(state.segments) for state in read] == [1, 0]
    assert_same_index(loaded, appended)
