"""Digest sends per process: its shard share of the global budget."""

from __future__ import annotations

import pytest

from paperbot.bot.scheduler import GLOBAL_SENDS_PER_S, SEND_INTERVAL_S, send_interval
from paperbot.core.shards import ShardSet


@pytest.mark.parametrize(
    ("processes", "shard_count"), [(1, 1), (2, 4), (4, 4), (16, 16), (32, 64), (100, 100)]
)
def test_processes_together_stay_under_the_global_budget(processes: int, shard_count: int) -> None:
    per_process = shard_count // processes
    groups = [
        ShardSet(tuple(range(n * per_process, (n + 1) * per_process)), shard_count)
        for n in range(processes)
    ]
    total = sum(1.0 / send_interval(group) for group in groups)
    assert total <= max(GLOBAL_SENDS_PER_S, 1.0 / SEND_INTERVAL_S) + 1e-9
    assert total < 50  # Discord's global limit per bot token


def test_one_process_keeps_its_pace() -> None:
    assert send_interval(ShardSet()) == SEND_INTERVAL_S
