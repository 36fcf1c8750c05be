"""`paperbot load`'s preparation: the papers' texts read and normalised once
(two worker lanes), the search index and the topic matches built side by
side from them, give the same search results and topic matches as the
separate in-process builds, and leave no file behind; so do the texts a
first load normalises while it writes the papers (`early_texts`), which
are used only when the stored papers are exactly the planned ones, and
read back instead (one warning) when normalising them early failed."""

from __future__ import annotations

import asyncio
import logging
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paperbot.bench.incremental import write_pages
from paperbot.bench.search_queries import KEYWORD_QUERIES
from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.core.models import PaperColumns
from paperbot.core.search import pack_texts
from paperbot.core.topics import Topic, TopicMatches
from paperbot.services import paper_texts, workers
from paperbot.services import topics as topics_service
from paperbot.services.app import App, Prepared
from paperbot.services.paper_texts import SpilledTexts
from paperbot.storage import papers as papers_store
from paperbot.storage import search_index as index_store
from paperbot.storage.backend import Database
from tests.support.app import FIXED_NOW, settings_for
from tests.support.process import sigkill_self
from tests.support.topics import assert_same_matches

COUNT = 1200


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("paper-texts") / "corpus"
    write_corpus(folder, synthetic_papers(COUNT))
    return folder


async def loaded(path: Path, corpus: Path, *, early: bool = False) -> App:
    app = await App.open(settings_for(path))
    await app.corpus.load(
        [corpus], default_area="预训练", now=FIXED_NOW, limits=BENCH_LIMITS, early_texts=early
    )
    return app


def count_read_backs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One item per time the papers' columns are read back for the texts."""
    calls: list[int] = []
    read = index_store.paper_columns

    async def counted(db: Database) -> PaperColumns:
        calls.append(1)
        return await read(db)

    monkeypatch.setattr(index_store, "paper_columns", counted)
    return calls


async def answers(app: App) -> list[list[tuple[int, float, tuple[str, ...]]]]:
    out = []
    for query in KEYWORD_QUERIES:
        result = await app.search.search(query, limit=20)
        out.append([(hit.paper.id, hit.score, hit.matched) for hit in result.hits])
    return out


@pytest.mark.parametrize(
    ("early", "stored_as_planned", "read_backs"),
    [
        pytest.param(False, True, 1, id="read-back"),
        pytest.param(True, True, 0, id="early"),
        pytest.param(True, False, 1, id="early-but-stored-otherwise"),
    ],
)
async def test_shared_texts_give_the_same_results_as_separate_builds(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    early: bool,
    stored_as_planned: bool,
    read_backs: int,
) -> None:
    expected = await separate_results(corpus, tmp_path)
    as_at_scale(monkeypatch, tmp_path)
    if not stored_as_planned:
        # As if another load had written papers in between: keys differ.
        live_keys = papers_store.live_keys

        async def other_keys(db: Database) -> tuple[list[int], list[str]]:
            ids, keys = await live_keys(db)
            return ids, keys[::-1]

        monkeypatch.setattr(papers_store, "live_keys", other_keys)
    read = count_read_backs(monkeypatch)
    shared = await loaded(tmp_path / "shared.sqlite3", corpus, early=early)
    try:
        prepared = await shared.prepare(keep_topics=False)
    finally:
        await shared.close()
    assert len(read) == read_backs
    await assert_prepared_as(prepared, tmp_path / "shared.sqlite3", expected)


Answers = list[list[tuple[int, float, tuple[str, ...]]]]
Expected = tuple[Answers, list[Topic], list[TopicMatches]]


async def separate_results(corpus: Path, tmp_path: Path) -> Expected:
    """The search answers and the topics' matches of the in-process builds."""
    separate = await loaded(tmp_path / "separate.sqlite3", corpus)
    try:
        await separate.prepare()  # in process: each build normalises on its own
        expected = await answers(separate)
        topics = list(separate.topics.vocabulary.topics)
        expected_matches = [await separate.topics.matches(t) for t in topics]
    finally:
        await separate.close()
    assert sum(len(m) for m in expected_matches) > 0
    assert any(np.any(m.ids) for m in expected_matches)
    assert sum(len(hits) for hits in expected) > 0
    return expected, topics, expected_matches


def as_at_scale(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The load's way, in the worker processes as at scale, temporary files in `tmp_path/tmp`."""
    monkeypatch.setattr(workers, "WORKER_THRESHOLD", 1)
    monkeypatch.setattr(topics_service, "_THREAD_THRESHOLD", 1)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()


async def assert_prepared_as(prepared: Prepared, path: Path, expected: Expected) -> None:
    """Both built and stored, no file left, and a restart answers as expected."""
    answered, topics, expected_matches = expected
    assert (prepared.index_source, prepared.topics_source) == ("built", "built")
    assert prepared.papers == COUNT
    # The texts and the spilled results are removed (multiprocessing keeps its own `pymp-*`).
    assert list((path.parent / "tmp").glob("paperbot-*")) == []
    restarted = await App.open(settings_for(path))
    try:
        assert await answers(restarted) == answered
        assert restarted.search.last_status is not None
        assert restarted.search.last_status.source == "stored"
        for topic, matches in zip(topics, expected_matches, strict=True):
            assert_same_matches(await restarted.topics.matches(topic), matches)
        assert restarted.topics.last_source == "stored"
    finally:
        await restarted.close()


def fail_early_job(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """The early normalising job (its worker jobs run `nice`) fails `how`."""
    run = workers.off_lane

    async def failing(lane: int, size: int, fn: Any, *args: Any, **kwargs: Any) -> Any:
        if fn is not paper_texts.normalize_file or args[-1] != paper_texts.EARLY_NICENESS:
            return await run(lane, size, fn, *args, **kwargs)
        if how == "raises":
            raise RuntimeError("normalising failed")
        if how == "worker-killed":  # killed again on the retry: the pool breaks
            return await run(lane, size, sigkill_self, *args, **kwargs)
        await run(lane, size, fn, *args, **kwargs)
        Path(args[1]).unlink()  # "file-lost": written, then gone before it is read
        return None

    monkeypatch.setattr(workers, "off_lane", failing)


@pytest.mark.parametrize("how", ["raises", "worker-killed", "file-lost"])
async def test_a_failed_early_job_falls_back_to_reading_the_texts_back(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    how: str,
) -> None:
    expected = await separate_results(corpus, tmp_path)
    as_at_scale(monkeypatch, tmp_path)
    fail_early_job(monkeypatch, how)
    read = count_read_backs(monkeypatch)
    shared = await loaded(tmp_path / "shared.sqlite3", corpus, early=True)
    try:
        with caplog.at_level(logging.WARNING, logger=paper_texts.__name__):
            prepared = await shared.prepare(keep_topics=False)
    finally:
        await shared.close()
    assert len(read) == 1  # read back, as when the stored papers differ
    warned = [r.getMessage() for r in caplog.records if r.name == paper_texts.__name__]
    assert len(warned) == 1
    assert "early failed" in warned[0]
    assert "reading them back instead" in warned[0]
    await assert_prepared_as(prepared, tmp_path / "shared.sqlite3", expected)


async def test_early_texts_only_for_a_first_load_at_scale(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    small = await loaded(tmp_path / "small.sqlite3", corpus, early=True)
    try:
        # Below WORKER_THRESHOLD the usual way is quicker.
        assert small.corpus.take_early_texts() is None
    finally:
        await small.close()
    monkeypatch.setattr(workers, "WORKER_THRESHOLD", 1)
    app = await loaded(tmp_path / "first.sqlite3", corpus, early=True)
    try:
        first = app.corpus.take_early_texts()
        assert first is not None
        assert len(first.keys) == COUNT
        first.discard()
        await asyncio.gather(first.task, return_exceptions=True)
        await asyncio.sleep(0)  # its done callback removes what its workers wrote
        more = tmp_path / "more"
        write_pages(more, synthetic_papers(COUNT + 50)[COUNT:], "more")
        await app.corpus.load(
            [more], default_area="预训练", now=FIXED_NOW, limits=BENCH_LIMITS, early_texts=True
        )
        # Not into a corpus that holds papers: the builds may append.
        assert app.corpus.take_early_texts() is None
    finally:
        await app.close()
    assert list((tmp_path / "tmp").glob("paperbot-*")) == []


async def test_early_texts_never_asked_for_are_removed(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workers, "WORKER_THRESHOLD", 1)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    app = await loaded(tmp_path / "db.sqlite3", corpus, early=True)
    await app.close()  # no prepare: the texts are dropped at close
    assert list((tmp_path / "tmp").glob("paperbot-*")) == []


@pytest.mark.parametrize("texts", [[], [""], ["a", "低秩适配 LoRA", "", "b" * 5000]])
def test_spilled_texts_read_back_and_are_taken_whole(texts: list[str]) -> None:
    packed = pack_texts(texts)
    expected = packed.copy()
    spilled = SpilledTexts(packed)
    del packed
    assert list(spilled.texts) == texts
    assert spilled.texts[1:3] == texts[1:3]
    taken = spilled.take()
    assert taken.dtype == np.uint8
    assert np.array_equal(taken, expected)


ROWS = [(3, "a", "甲"), (5, "b", "乙"), (8, "c", "丙"), (9, "", "")]


def _part(rows: list[tuple[int, str, str]], *, ids: bool = True) -> paper_texts._Part:
    columns = PaperColumns(
        ids=[i for i, _, _ in rows] if ids else [],
        titles=[t.upper() for _, t, _ in rows],
        venues=["V"] * len(rows),
        years=[2024] * len(rows),
    )
    return paper_texts._Part(columns, [t for _, t, _ in rows], [s for _, _, s in rows])


@pytest.mark.parametrize(
    "parts",
    [
        pytest.param([_part(ROWS)], id="one-file"),
        pytest.param([_part(ROWS[:1]), _part(ROWS[1:])], id="a-file-per-lane"),
        pytest.param(
            [
                paper_texts._Part(PaperColumns(ids=[i for i, _, _ in ROWS]), [], []),
                _part(ROWS[:3], ids=False),
                _part(ROWS[3:], ids=False),
            ],
            id="early-ids-first",
        ),
    ],
)
def test_the_topic_worker_streams_the_files_rows_in_order(
    tmp_path: Path, parts: list[paper_texts._Part]
) -> None:
    files = [str(tmp_path / f"part-{i}") for i in range(len(parts))]
    paper_texts._write_parts(parts, files)
    assert list(paper_texts._streamed(tuple(files))) == ROWS
