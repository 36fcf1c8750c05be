"""CPU work in the worker process: same results as in-process, another
process, and a dead worker replaced."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from paperbot.services import worker_transfer, workers
from paperbot.services.app import App
from paperbot.storage import papers
from paperbot.storage.backend import Database, open_database
from tests.support.app import FIXED_NOW, settings_for
from tests.support.process import sigkill_self

QUERIES = ("speculative decoding", "数据去重", "shampo optimizer", "MoE 路由", "ＱＬｏＲＡ")


def worker_pid() -> int:
    return os.getpid()


async def test_a_job_runs_in_another_process() -> None:
    try:
        assert await workers.in_worker(worker_pid) != os.getpid()
    finally:
        workers.shutdown_workers()


async def test_a_dead_worker_is_replaced_and_the_job_retried() -> None:
    calls: list[int] = []
    try:
        with pytest.raises(workers.BrokenProcessPool):
            # Dies twice: the retry dies as well and the failure is reported.
            await workers.in_worker(sigkill_self)
        calls.append(await workers.in_worker(worker_pid))
    finally:
        workers.shutdown_workers()
    assert calls
    assert calls[0] != os.getpid()


def slow_large_result(started: str, seconds: float) -> npt.NDArray[np.uint8]:
    Path(started).touch()
    time.sleep(seconds)
    return np.zeros(worker_transfer.OUT_OF_BAND_BYTES + 1, dtype=np.uint8)  # comes as a file


async def test_a_cancelled_jobs_result_file_goes_when_the_job_ends(private_tmp: Path) -> None:
    # Cancelled while it runs (a search rebuild at shutdown), the job runs on
    # in its process and writes its file after the caller has gone.
    started = private_tmp / "started"
    job = asyncio.create_task(workers.in_worker(slow_large_result, str(started), 1.0))
    try:
        for _ in range(300):
            if started.exists() or job.done():
                break
            await asyncio.sleep(0.05)
        assert started.exists()
        job.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await job
    finally:
        await asyncio.to_thread(workers.shutdown_workers)  # waits for the job to end
    assert list(private_tmp.glob("paperbot-result-*")) == []


async def ranked_ids(app: App) -> list[list[int]]:
    out = []
    for query in QUERIES:
        result = await app.search.search(query, limit=10)
        out.append([h.paper.id for h in result.hits])
    return out


async def test_index_and_topics_built_in_the_worker_match_in_process(
    loaded_app: App, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await loaded_app.prepare()
    in_process = await ranked_ids(loaded_app)
    topic = loaded_app.topics.vocabulary.topics[0]
    in_process_topic = (await loaded_app.topics.matches(topic)).ids
    monkeypatch.setattr(workers, "WORKER_THRESHOLD", 1)
    monkeypatch.setattr("paperbot.services.topics._THREAD_THRESHOLD", 1)
    other = await App.open(settings_for(tmp_path / "other.sqlite3"))
    try:
        await other.corpus.load(
            [loaded_app.settings.corpus.path], default_area="预训练", now=FIXED_NOW
        )
        await other.prepare()
        assert other.search.last_status is not None
        assert other.search.last_status.source == "built"
        assert await ranked_ids(other) == in_process
        assert list((await other.topics.matches(topic)).ids) == list(in_process_topic)
    finally:
        await other.close()


async def test_picking_arrays_built_in_the_worker_pick_as_in_process(
    loaded_app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    await loaded_app.subscriptions.subscribe(1, 10, "reasoning", FIXED_NOW)
    in_process, _ = await loaded_app.digest.plan(guild_id=1, channel_id=None, count=5)
    monkeypatch.setattr(workers, "WORKER_THRESHOLD", 1)
    loaded_app.digest._corpus = None  # built again, now in the worker process
    built: list[object] = []
    real = workers.in_lane

    async def counted(lane: int, fn: object, *args: object, **kwargs: object) -> object:
        built.append(fn)
        return await real(lane, fn, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(workers, "in_lane", counted)
    try:
        in_worker, _ = await loaded_app.digest.plan(guild_id=1, channel_id=None, count=5)
    finally:
        workers.shutdown_workers()
    assert built
    assert in_worker.picks == in_process.picks


async def _corpus_version(db: Database) -> int:
    return await papers.corpus_version(db)


def test_work_on_a_connection_of_its_own_returns_its_result(tmp_path: Path) -> None:
    # A plain function with no running event loop, as a worker process calls it.
    path = tmp_path / "paperbot.sqlite3"
    asyncio.run(_opened(path))
    assert workers.with_own_connection(str(path), _corpus_version) == (0, None)


def test_a_storage_failure_comes_back_as_its_message(tmp_path: Path) -> None:
    path = tmp_path / "paperbot.sqlite3"
    path.write_bytes(b"not a database, " * 512)
    result, problem = workers.with_own_connection(str(path), _corpus_version)
    assert result is None
    assert problem


async def _opened(path: Path) -> None:
    db = await open_database(path)
    await db.close()


@pytest.mark.parametrize(
    ("temp_dir", "start"), [("/tmp/pymp-abcdefgh", "forkserver"), ("/tmp/" + "d" * 96, "spawn")]
)
def test_workers_are_spawned_when_the_fork_servers_socket_path_would_not_fit(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, temp_dir: str, start: str
) -> None:
    import multiprocessing.util
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("workers start by fork server on Linux only")
    monkeypatch.setattr(multiprocessing.util, "get_temp_dir", lambda: temp_dir)
    workers._socket_fits.cache_clear()
    try:
        assert workers._context().get_start_method() == start
    finally:
        workers._socket_fits.cache_clear()
    assert ("too long for the fork server's socket" in caplog.text) == (start == "spawn")
