"""CPU-heavy work (index builds, topic preparation, parsing pages at scale)
in a worker process, so the event loop keeps the GIL.

A worker thread does not keep the bot responsive: the builds hold the GIL
for long stretches (numpy calls, `str.join` over megabytes, OpenCC), and
200 interactions arriving during a 100,000-paper build were not one of them
acknowledged within Discord's 3 seconds. A separate process competes for a
core, never for the interpreter.

One process at a time (the machine may have two cores; the loop needs one),
started by `forkserver` with the heavy modules preloaded (no fork of a
process holding threads and an open database), and replaced after each job
(`max_tasks_per_child=1`) so a build's peak memory is handed back to the
OS instead of being kept by a long-lived worker.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

__all__ = ["WORKER_THRESHOLD", "BrokenProcessPool", "in_worker", "off_loop", "shutdown_workers"]
from typing import ParamSpec, TypeVar

log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")

# Imported once by the fork server, so each fresh worker starts in a fraction
# of a second instead of importing numpy, OpenCC and rapidfuzz again.
_PRELOAD = ["paperbot.core.search", "paperbot.core.topics", "paperbot.core.corpus"]

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()


def _context() -> multiprocessing.context.BaseContext:
    if sys.platform.startswith("linux"):
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(_PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def _executor() -> ProcessPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=1, mp_context=_context(), max_tasks_per_child=1)
        return _pool


WORKER_THRESHOLD = 5_000
"""Jobs over at least this many papers go to the worker process; smaller
ones run in a thread (a process start would cost more than the job)."""


async def off_loop(size: int, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """`fn` off the event loop: in the worker process for `size` papers at or
    above `WORKER_THRESHOLD`, else in a thread."""
    if size >= WORKER_THRESHOLD:
        return await in_worker(fn, *args, **kwargs)
    return await asyncio.to_thread(fn, *args, **kwargs)


async def in_worker(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """`fn(*args, **kwargs)` in the worker process (arguments and result are
    pickled: pass columns and arrays, not open handles). A worker that died
    (killed, out of memory) is replaced and the job tried once more."""
    call = functools.partial(fn, *args, **kwargs)
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(_executor(), call)
    except BrokenProcessPool:
        log.warning("the worker process died; starting a new one and retrying")
        _discard_broken()
        return await loop.run_in_executor(_executor(), call)


def _discard_broken() -> None:
    global _pool
    with _pool_lock:
        broken, _pool = _pool, None
    if broken is not None:
        broken.shutdown(wait=False, cancel_futures=True)


def shutdown_workers() -> None:
    """Stop the worker process (at exit; a later job starts a new one)."""
    global _pool
    with _pool_lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)
