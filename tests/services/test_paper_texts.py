"""`paperbot load`'s preparation: the papers' texts read and normalised once
(two worker lanes), the search index and the topic matches built side by
side from them, give the same search results and topic matches as the
separate in-process builds, and leave no file behind."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest

from paperbot.bench.search import QUERIES
from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.services import topics as topics_service
from paperbot.services import workers
from paperbot.services.app import App
from tests.support.app import FIXED_NOW, settings_for
from tests.support.topics import assert_same_matches

COUNT = 1200


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("paper-texts") / "corpus"
    write_corpus(folder, synthetic_papers(COUNT))
    return folder


async def loaded(path: Path, corpus: Path) -> App:
    app = await App.open(settings_for(path))
    await app.corpus.load([corpus], default_area="预训练", now=FIXED_NOW, limits=BENCH_LIMITS)
    return app


async def answers(app: App) -> list[list[tuple[int, float, tuple[str, ...]]]]:
    out = []
    for query in QUERIES:
        result = await app.search.search(query, limit=20)
        out.append([(hit.paper.id, hit.score, hit.matched) for hit in result.hits])
    return out


async def test_shared_texts_give_the_same_results_as_separate_builds(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
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
    shared = await loaded(tmp_path / "shared.sqlite3", corpus)
    try:
        prepared = await shared.prepare(keep_topics=False)
    finally:
        await shared.close()
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
