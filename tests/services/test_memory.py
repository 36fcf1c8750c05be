"""Handing memory back to the OS: large blocks mapped apart in a worker
process only, never in the process that asks for the work."""

from __future__ import annotations

import pytest

from paperbot.services import memory, workers


def test_large_blocks_are_left_as_they_are_in_the_loading_process() -> None:
    assert memory.hand_back_large_blocks() is False


async def test_large_blocks_are_mapped_apart_in_a_worker_process() -> None:
    if memory._MALLOPT is None:
        pytest.skip("not glibc: no mallopt")
    try:
        assert await workers.in_worker(memory.hand_back_large_blocks) is True
    finally:
        workers.shutdown_workers()
