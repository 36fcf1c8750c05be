"""Which worker processes run when: none idles between jobs, and what a
job needs in this process is made by `warm_up`, before a load."""

from __future__ import annotations

import asyncio
import os
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

from paperbot.services import workers
from tests.support.process import run_python

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/task").exists(), reason="reads the process tree from /proc"
)


def descendants(pid: int) -> set[int]:
    """`pid`'s child processes, recursively (the fork server's workers too)."""
    found: set[int] = set()
    pending = [pid]
    while pending:
        current = pending.pop()
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                children = {int(c) for c in (task / "children").read_text().split()}
            except (OSError, ValueError):
                continue
            pending += children - found
            found |= children
    return found


def worker_pid() -> int:
    return os.getpid()


async def test_no_worker_process_idles_after_its_job() -> None:
    try:
        workers.warm_up()  # the fork server (and its resource tracker) only
        before = descendants(os.getpid())
        first = await workers.in_lane(1, worker_pid)
        # The worker exits after its job; a replacement would be forked
        # from the fork server right away.
        await asyncio.sleep(0.5)
        assert descendants(os.getpid()) == before
        # The next job starts one, as before.
        second = await workers.in_lane(1, worker_pid)
        assert second not in (first, os.getpid())
    finally:
        workers.shutdown_workers()


def test_a_job_submitted_as_the_last_worker_exits_gets_a_worker() -> None:
    """The pool's manager thread sets a job's result before it reaps the
    worker that exited after it: a job submitted in between (here from the
    result's own callback, as deterministic as that window gets) found the
    old worker still counted, so none was started, and it waited for good."""
    pool = workers._executor(1)
    chained: list[Future[int]] = []
    try:
        first = pool.submit(worker_pid)
        first.add_done_callback(lambda _: chained.append(pool.submit(worker_pid)))
        first_pid = first.result(timeout=60)
        deadline = time.monotonic() + 60
        while not chained and time.monotonic() < deadline:
            time.sleep(0.01)
        assert chained[0].result(timeout=60) not in (first_pid, os.getpid())
    finally:
        workers.shutdown_workers()


def test_warm_up_makes_what_a_job_needs_in_this_process() -> None:
    code = (
        "import sys\n"
        "from paperbot.services import workers\n"
        "workers.warm_up()\n"
        "modules = ('multiprocessing.synchronize', 'concurrent.futures.thread')\n"
        "print(all(m in sys.modules for m in modules), len(workers._pools))\n"
        "workers.shutdown_workers()\n"
    )
    done = run_python("-c", code, check=True)
    assert done.stdout.split() == ["True", str(workers.LANES)]
