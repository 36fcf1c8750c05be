"""Handing memory back to the OS: large blocks mapped apart in a worker
process only, never in the process that asks for the work."""

from __future__ import annotations

import subprocess
import sys

import pytest

from paperbot.services import memory, workers
from tests.support.app import REPO
from tests.support.heaps import heaps_after_a_thread


def test_large_blocks_are_left_as_they_are_in_the_loading_process() -> None:
    assert memory.hand_back_large_blocks() is False


async def test_large_blocks_are_mapped_apart_in_a_worker_process() -> None:
    if memory._MALLOPT is None:
        pytest.skip("not glibc: no mallopt")
    try:
        assert await workers.in_worker(memory.hand_back_large_blocks) is True
    finally:
        workers.shutdown_workers()


@pytest.mark.parametrize(("one", "heaps"), [(True, 1), (False, 2)])
def test_threads_started_after_one_arena_share_the_main_heap(one: bool, heaps: int) -> None:
    if memory._MALLOPT is None:
        pytest.skip("not glibc: no mallopt")
    # A fresh interpreter: this one's threads have arenas of their own already.
    setup = "from paperbot.services.memory import one_arena\nassert one_arena()\n" if one else ""
    code = (
        setup
        + "from tests.support.heaps import heaps_after_a_thread\nprint(heaps_after_a_thread())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert int(done.stdout) == heaps


async def test_a_worker_process_threads_share_its_one_heap() -> None:
    """Its database thread, when a job stores, frees into the heap the job uses."""
    if memory._MALLOPT is None:
        pytest.skip("not glibc: no mallopt")
    try:
        assert await workers.in_worker(heaps_after_a_thread) == 1
    finally:
        workers.shutdown_workers()
