"""The stored topic corpus and matches as a base plus append-only segments:
`paperbot load` (`prepare_stored`, a new process) writes only its segment,
loading base and segments equals the corpus and matches appended
in-process, and a full save compacts the segments away. On both backends."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from paperbot.bench.incremental import write_pages
from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.config import BUNDLED_TOPICS
from paperbot.core.topics import build_corpus, match_topic
from paperbot.services import search_store, topics_store, workers
from paperbot.services.topics import TopicService, load_vocabulary
from paperbot.storage import index_segments, papers, search_index
from paperbot.storage.backend import Database
from paperbot.storage.search_index import StoredIndex
from tests.support.corpus import load_pages
from tests.support.topics import assert_same_corpus, assert_same_matches

COUNT = 1500
STEP = COUNT // 100


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("topic-segments")
    papers = synthetic_papers(COUNT + 2 * STEP)
    write_corpus(folder / "base", papers[:COUNT])
    for name, part in (("one", papers[COUNT : COUNT + STEP]), ("two", papers[COUNT + STEP :])):
        write_pages(folder / name, part, name)
    return folder


def service(db: Database) -> TopicService:
    return TopicService(db, load_vocabulary(BUNDLED_TOPICS))


async def rows(db: Database, table: str, where: str = "1 = 1") -> list[tuple[str, int, int]]:
    found = await db.fetch_all(
        f"SELECT name, corpus_version, LENGTH(data) FROM {table} WHERE {where}"
    )
    return sorted((str(r[0]), int(r[1]), int(r[2])) for r in found)


async def stored_base(db: Database, corpora: Path) -> TopicService:
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    topics = service(db)
    await topics.warm()
    return topics


async def assert_same_state(ours: TopicService, theirs: TopicService) -> None:
    _, corpus = await ours.corpus()
    _, other = await theirs.corpus()
    assert_same_corpus(corpus, other)
    for topic in ours.vocabulary.topics:
        assert_same_matches(await ours.matches(topic), await theirs.matches(topic))


async def test_an_append_in_a_new_process_writes_only_its_segment(
    db: Database, corpora: Path
) -> None:
    await stored_base(db, corpora)
    base = await rows(db, "search_index")
    for number, name in enumerate(("one", "two"), start=1):
        await load_pages(db, corpora / name, limits=BENCH_LIMITS)
        assert await service(db).prepare_stored() == "appended"  # a new process
        assert await rows(db, "search_index") == base
        state = await topics_store.current_state(db)
        assert state is not None
        assert len(state.segments) == number
    written = sum(size for _, _, size in await rows(db, "index_segments"))
    assert 0 < written < 0.1 * sum(size for _, _, size in base)


async def test_base_and_segments_load_as_the_corpus_appended_in_process(
    db: Database, corpora: Path
) -> None:
    in_process = await stored_base(db, corpora)
    for name in ("one", "two"):
        await load_pages(db, corpora / name, limits=BENCH_LIMITS)
        await service(db).prepare_stored()
    await in_process.warm()
    assert in_process.last_source == "appended"
    restarted = service(db)
    await restarted.warm()
    assert restarted.last_source == "stored"
    await assert_same_state(restarted, in_process)


async def test_past_the_segment_limit_a_full_save_compacts_them(
    db: Database, corpora: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_store, "SEGMENT_LIMIT", 1)
    in_process = await stored_base(db, corpora)
    await load_pages(db, corpora / "one", limits=BENCH_LIMITS)
    assert await service(db).prepare_stored() == "appended"
    await load_pages(db, corpora / "two", limits=BENCH_LIMITS)
    assert await service(db).prepare_stored() == "appended"  # base + segment, saved whole
    assert await rows(db, "index_segments") == []
    state = await topics_store.current_state(db)
    assert state is not None
    assert state.segments == ()
    await in_process.warm()
    restarted = service(db)
    await restarted.warm()
    assert restarted.last_source == "stored"
    await assert_same_state(restarted, in_process)


async def test_an_append_in_process_is_stored_as_a_segment(db: Database, corpora: Path) -> None:
    topics = await stored_base(db, corpora)
    base = await rows(db, "search_index")
    await load_pages(db, corpora / "one", limits=BENCH_LIMITS)
    await topics.warm()
    assert topics.last_source == "appended"
    assert await rows(db, "search_index") == base
    state = await topics_store.current_state(db)
    assert state is not None
    assert len(state.segments) == 1
    restarted = service(db)
    await restarted.warm()
    assert restarted.last_source == "stored"
    await assert_same_state(restarted, topics)


async def test_a_full_build_is_stored_by_the_worker_unless_a_load_raced_it(
    db: Database, corpora: Path
) -> None:
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    version = await papers.corpus_version(db)
    columns = await search_index.paper_columns(db)
    found = list(zip(columns.ids, columns.titles, columns.summaries, strict=True))
    vocabulary = load_vocabulary(BUNDLED_TOPICS)
    raced = (version - 1, found[-1][0])  # the corpus moved on since the worker read it
    build = topics_store.build_and_store
    skipped = await asyncio.to_thread(build, found, False, vocabulary, db.target, raced)
    assert skipped == ("skipped", None)
    assert await topics_store.current_state(db) is None
    # A real worker process, through a connection of its own.
    mark = (version, found[-1][0])
    built = await workers.in_lane(1, build, found, False, vocabulary, db.target, mark)
    assert built == ("built", None)
    state = await topics_store.current_state(db)
    assert state is not None
    assert state.version == version
    restarted = service(db)
    await restarted.warm()
    assert restarted.last_source == "stored"
    whole = await asyncio.to_thread(build_corpus, found)
    _, corpus = await restarted.corpus()
    assert_same_corpus(corpus, whole, other_process=True)
    protected = vocabulary.term_words()
    for topic in vocabulary.topics:
        expected = match_topic(topic, whole, protected, vocabulary)
        assert_same_matches(await restarted.matches(topic), expected)


async def test_a_reader_whose_state_is_compacted_meanwhile_reads_again(
    db: Database, corpora: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_store, "SEGMENT_LIMIT", 1)
    await stored_base(db, corpora)
    await load_pages(db, corpora / "one", limits=BENCH_LIMITS)
    assert await service(db).prepare_stored() == "appended"  # base + one segment
    await load_pages(db, corpora / "two", limits=BENCH_LIMITS)
    real = index_segments.load_with_segments
    read: list[index_segments.StoredState] = []
    compacted: list[bool] = []

    async def compacted_first(
        db: Database, scope: str, state: index_segments.StoredState
    ) -> tuple[StoredIndex, list[index_segments.Segment]] | None:
        if not compacted:  # another process's load saves base + segment whole meanwhile
            compacted.append(True)
            assert await service(db).prepare_stored() == "appended"
            compacted.append(False)  # the reader's reads from here on
        if compacted[-1] is False:
            read.append(state)
        return await real(db, scope, state)

    monkeypatch.setattr(index_segments, "load_with_segments", compacted_first)
    reader = service(db)
    await reader.warm()
    assert reader.last_source == "stored"
    assert [len(state.segments) for state in read] == [1, 0]
