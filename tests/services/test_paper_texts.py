"""`paperbot load`'s preparation: the papers' texts read and normalised once
(two worker lanes), the search index and the topic matches built side by
side from them, give the same search results and topic matches as the
separate in-process builds, and leave no file behind; so do the texts a
first load normalises while it writes the papers (`early_texts`), which
are used only when the stored papers are exactly the planned ones."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import numpy as np
import pytest

from paperbot.bench.incremental import write_pages
from paperbot.bench.search import QUERIES
from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.core.models import PaperColumns
from paperbot.core.search import pack_texts
from paperbot.services import topics as topics_service
from paperbot.services import workers
from paperbot.services.app import App
from paperbot.services.paper_texts import SpilledTexts
from paperbot.storage import papers as papers_store
from paperbot.storage import search_index as index_store
from paperbot.storage.backend import Database
from tests.support.app import FIXED_NOW, settings_for
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
    for query in QUERIES:
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
    separate = await loaded(tmp_path / "separate.sqlite3", corpus)
    try:
        await separate.prepare()  # in process: each build normalises on its own
        expected = await answers(separate)
        topics = separate.topics.vocabulary.topics
        expected_matches = [await separate.topics.matches(t) for t in topics]
    finally:
        await separate.close()
    # The load's way, in the worker processes as at scale.
    monkeypatch.setattr(workers, "WORKER_THRESHOLD", 1)
    monkeypatch.setattr(topics_service, "_THREAD_THRESHOLD", 1)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
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
    assert (prepared.index_source, prepared.topics_source) == ("built", "built")
    assert prepared.papers == COUNT
    # The texts and the spilled results are removed (multiprocessing keeps its own `pymp-*`).
    assert list((tmp_path / "tmp").glob("paperbot-*")) == []
    restarted = await App.open(settings_for(tmp_path / "shared.sqlite3"))
    try:
        assert await answers(restarted) == expected
        assert restarted.search.last_status is not None
        assert restarted.search.last_status.source == "stored"
        for topic, matches in zip(topics, expected_matches, strict=True):
            assert_same_matches(await restarted.topics.matches(topic), matches)
        assert restarted.topics.last_source == "stored"
    finally:
        await restarted.close()
    assert sum(len(m) for m in expected_matches) > 0
    assert any(np.any(m.ids) for m in expected_matches)
    assert sum(len(hits) for hits in expected) > 0


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
