"""CPU-heavy work (index builds, topic preparation, parsing pages at scale)
in a worker process, so the event loop keeps the GIL.

A worker thread does not keep the bot responsive: the builds hold the GIL
for long stretches (numpy calls, `str.join` over megabytes, OpenCC), and
200 interactions arriving during a 100,000-paper build were not one of them
acknowledged within Discord's 3 seconds. A separate process competes for a
core, never for the interpreter.

One process at a time (the machine may have two cores; the loop needs one),
except where the loop has nothing else to do: `paperbot load` prepares the
search index and the topic matches side by side, one worker process each
(`in_lane`). Workers are started by `forkserver` with the heavy modules preloaded (no fork of a
process holding threads and an open database; spawned where the fork server's
socket path would not fit, under a deep TMPDIR), and replaced after each job
(`max_tasks_per_child=1`) so a build's peak memory is handed back to the
OS instead of being kept by a long-lived worker.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import logging
import multiprocessing
import multiprocessing.forkserver
import multiprocessing.util
import os
import sys
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool, _ExecutorManagerThread

from paperbot.services import worker_transfer
from paperbot.services.memory import one_arena
from paperbot.storage.backend import Database, open_again
from paperbot.storage.db import StorageError

__all__ = [
    "LANES",
    "WORKER_THRESHOLD",
    "BrokenProcessPool",
    "in_lane",
    "in_worker",
    "off_lane",
    "off_loop",
    "shutdown_workers",
    "warm_up",
    "with_own_connection",
]
from typing import ParamSpec, TypeVar

log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")

# Imported once by the fork server, so each fresh worker starts in a fraction
# of a second instead of importing numpy, OpenCC and rapidfuzz again.
_PRELOAD = [
    "paperbot.core.search",
    "paperbot.core.topics",
    "paperbot.core.corpus",
    "paperbot.services.paper_texts",
]

LANES = 2
"""Worker processes that can run at once, one per lane (lane 0 is `in_worker`'s)."""

_pools: dict[int, ProcessPoolExecutor] = {}
_pool_lock = threading.Lock()


# A Unix socket's path holds at most 107 bytes; the fork server listens on
# one in multiprocessing's temp folder (under TMPDIR): `listener-` + 8.
_SOCKET_PATH_MAX = 107
_SOCKET_NAME_BYTES = len("/listener-12345678")


def _context() -> multiprocessing.context.BaseContext:
    if sys.platform.startswith("linux") and _socket_fits():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(_PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


@functools.cache
def _socket_fits() -> bool:
    """Whether the fork server's socket path fits; else workers are spawned
    (slower to start, same results) instead of failing on every job with
    "AF_UNIX path too long" under a deep TMPDIR."""
    folder = os.fsencode(multiprocessing.util.get_temp_dir())
    if len(folder) + _SOCKET_NAME_BYTES <= _SOCKET_PATH_MAX:
        return True
    log.warning(
        "the temp folder's path is too long for the fork server's socket (%d bytes):"
        " worker processes are spawned instead, which start slower; a shorter TMPDIR avoids it",
        len(folder),
    )
    return False


class _OnDemandPool(ProcessPoolExecutor):
    """A pool that starts its worker process when a job is submitted, not
    as soon as the last one exits: `ProcessPoolExecutor` replaces a worker
    that reached `max_tasks_per_child` at once, and the replacement (~45 MB
    resident, most of it the fork server's pages) would sit idle until the
    next job: beside the other lane's build during a load, and for good in
    the bot."""

    def _adjust_process_count(self) -> None:
        # The manager thread calls this after reaping a worker that exited
        # after its job. It sets that job's result *before* the reaping, so
        # a job submitted in between saw the old worker still counted and
        # started none: that job is waiting, and needs its worker now.
        reaping = isinstance(threading.current_thread(), _ExecutorManagerThread)
        if reaping and not self._pending_work_items:
            return  # no job waits: the next submit starts the worker
        super()._adjust_process_count()


def _executor(lane: int) -> ProcessPoolExecutor:
    with _pool_lock:
        pool = _pools.get(lane)
        if pool is None:
            pool = _pools[lane] = _OnDemandPool(
                max_workers=1,
                mp_context=_context(),
                max_tasks_per_child=1,
                # Before its threads (the database's, when a job stores)
                # start: they share the one heap (`memory.one_arena`).
                initializer=one_arena,
            )
        return pool


def warm_up() -> None:
    """Start the fork server now, for a caller that knows jobs are coming:
    it imports the heavy modules in its own process (another core) while
    the caller goes on. Else the first job starts it, and submitting that
    job blocks the event loop until the imports are done."""
    if isinstance(_context(), multiprocessing.context.ForkServerContext):
        multiprocessing.forkserver.ensure_running()
        importlib.import_module("multiprocessing.popen_forkserver")
    # The modules and objects every job needs, made now: made during the
    # load (the first job's), the few that live on would each keep a 1 MB
    # block of the interpreter's heap, full of the load's freed objects,
    # from being handed back.
    importlib.import_module("multiprocessing.synchronize")
    importlib.import_module("concurrent.futures.thread")
    for lane in range(LANES):
        _executor(lane)


WORKER_THRESHOLD = 5_000
"""Jobs over at least this many papers go to the worker process; smaller
ones run in a thread (a process start would cost more than the job)."""


async def off_loop(size: int, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """`fn` off the event loop: in the worker process for `size` papers at or
    above `WORKER_THRESHOLD`, else in a thread."""
    if size >= WORKER_THRESHOLD:
        return await in_worker(fn, *args, **kwargs)
    return await asyncio.to_thread(fn, *args, **kwargs)


async def off_lane(
    lane: int, size: int, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs
) -> R:
    """`off_loop` in worker lane `lane` (see `in_lane`)."""
    if size >= WORKER_THRESHOLD:
        return await in_lane(lane, fn, *args, **kwargs)
    return await asyncio.to_thread(fn, *args, **kwargs)


async def in_worker(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """`fn(*args, **kwargs)` in the worker process (arguments and result are
    pickled: pass columns and arrays, not open handles). A worker that died
    (killed, out of memory) is replaced and the job tried once more."""
    return await in_lane(0, fn, *args, **kwargs)


async def in_lane(lane: int, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """`in_worker` in the worker process of `lane` (0 to `LANES - 1`): jobs
    in different lanes run at the same time, each on its own core."""
    if not 0 <= lane < LANES:
        raise ValueError(f"no worker lane {lane}")
    call = functools.partial(fn, *args, **kwargs)
    path = worker_transfer.spill_path()
    # Large arrays come back through a file, not the pipe (`worker_transfer`).
    job = functools.partial(worker_transfer.run_and_spill, call, path)
    try:
        try:
            result = await _finished(lane, job, path)
        except BrokenProcessPool:
            log.warning("the worker process died; starting a new one and retrying")
            _discard_broken(lane)
            worker_transfer.discard(path)
            result = await _finished(lane, job, path)
        return worker_transfer.receive(result)
    finally:
        worker_transfer.discard(path)


async def _finished(lane: int, job: Callable[[], R], path: str) -> R:
    """`job`'s result from the worker of `lane`. A job cancelled while it
    runs (a rebuild stopped at shutdown) runs on to its end in its process:
    the file it writes then (`worker_transfer`) is removed then."""
    future = _executor(lane).submit(job)
    try:
        return await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        future.add_done_callback(lambda _: worker_transfer.discard(path))
        raise


def with_own_connection(
    target: str, work: Callable[[Database], Awaitable[R]]
) -> tuple[R | None, str | None]:
    """In a worker process: `work` on a connection of its own to the
    database at `target` (`Database.target`), closed after it, so what the
    worker built is stored there instead of crossing back to the loading
    process. (its result, None), or (None, why storing failed): the message
    crosses back, as `StorageError`'s subclasses do not pickle."""
    return asyncio.run(_with_connection(target, work))


async def _with_connection(
    target: str, work: Callable[[Database], Awaitable[R]]
) -> tuple[R | None, str | None]:
    try:
        db = await open_again(target)
        try:
            return await work(db), None
        finally:
            await db.close()
    except StorageError as exc:
        return None, str(exc)


def _discard_broken(lane: int) -> None:
    with _pool_lock:
        broken = _pools.pop(lane, None)
    if broken is not None:
        broken.shutdown(wait=False, cancel_futures=True)


def shutdown_workers() -> None:
    """Stop the worker processes (at exit; a later job starts a new one)."""
    with _pool_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.shutdown(wait=True, cancel_futures=True)
