"""`CorpusService.load(early_texts=True)`: the fork server is started before
the parse only for a first load whose files can hold papers at scale, and
the stored papers are the same with or without early texts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.services import corpus as corpus_service
from paperbot.services import workers
from paperbot.services.app import App
from paperbot.services.paper_texts import EarlyTexts
from tests.support.app import FIXED_NOW, settings_for

# Every test: the code under test makes temporary files.
pytestmark = pytest.mark.usefixtures("private_tmp")


async def discarded(texts: EarlyTexts | None) -> None:
    """Discard early texts as a load that never uses them does, and wait
    for their workers (their files are removed once these are done)."""
    if texts is not None:
        texts.discard()
        await asyncio.gather(texts.task, return_exceptions=True)
        await asyncio.sleep(0)  # the task's done callbacks


async def load(app: App, folder: Path, *, early: bool) -> None:
    await app.corpus.load(
        [folder], default_area="预训练", now=FIXED_NOW, limits=BENCH_LIMITS, early_texts=early
    )


@pytest.mark.parametrize(
    ("early", "bytes_per_paper", "preloaded", "warmed"),
    [
        pytest.param(True, 1, False, True, id="first-load-big-enough"),
        pytest.param(True, 10**6, False, False, id="files-too-small"),
        pytest.param(True, 1, True, False, id="corpus-not-empty"),
        pytest.param(False, 1, False, False, id="not-asked"),
    ],
)
async def test_fork_server_warmed_only_for_a_first_load_at_scale(
    tmp_path: Path,
    private_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
    early: bool,
    bytes_per_paper: int,
    preloaded: bool,
    warmed: bool,
) -> None:
    papers = synthetic_papers(300)
    write_corpus(tmp_path / "first", papers[:100])
    write_corpus(tmp_path / "corpus", papers)
    monkeypatch.setattr(workers, "WORKER_THRESHOLD", 100)
    monkeypatch.setattr(corpus_service, "EARLY_BYTES_PER_PAPER", bytes_per_paper)
    calls: list[int] = []
    monkeypatch.setattr(workers, "warm_up", lambda: calls.append(1))
    app = await App.open(settings_for(tmp_path / "db.sqlite3"))
    try:
        if preloaded:
            await load(app, tmp_path / "first", early=False)
        await load(app, tmp_path / "corpus", early=early)
        assert calls == ([1] if warmed else [])
        # Early texts follow the same rule (the plan inserts 300 >= 100 papers).
        early_texts = app.corpus.take_early_texts()
        assert (early_texts is not None) == (early and not preloaded)
        await discarded(early_texts)
    finally:
        await app.close()
    assert list(private_tmp.glob("paperbot-*")) == []


async def test_early_texts_store_the_same_papers(
    tmp_path: Path, private_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workers, "WORKER_THRESHOLD", 100)
    write_corpus(tmp_path / "corpus", synthetic_papers(300))
    stored = []
    for early in (False, True):
        app = await App.open(settings_for(tmp_path / f"{early}.sqlite3"))
        try:
            await load(app, tmp_path / "corpus", early=early)
            texts = app.corpus.take_early_texts()
            assert (texts is not None) == early
            await discarded(texts)
            stored.append(await app.corpus.list_papers())
        finally:
            await app.close()
    assert stored[0] == stored[1]
    assert len(stored[0]) == 300
    assert list(private_tmp.glob("paperbot-*")) == []


@pytest.mark.parametrize(("early", "released"), [(True, 1), (False, 0)])
async def test_a_load_with_early_texts_hands_its_freed_memory_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, early: bool, released: int
) -> None:
    """Once written, while the worker processes still normalise: the parsed
    pages and the plan are not kept by the allocator beside them."""
    monkeypatch.setattr(workers, "WORKER_THRESHOLD", 100)
    write_corpus(tmp_path / "corpus", synthetic_papers(300))
    calls: list[int] = []
    monkeypatch.setattr(corpus_service, "release_free_memory", lambda: calls.append(1))
    app = await App.open(settings_for(tmp_path / "db.sqlite3"))
    try:
        await load(app, tmp_path / "corpus", early=early)
        assert len(calls) == released
        await discarded(app.corpus.take_early_texts())
    finally:
        await app.close()
