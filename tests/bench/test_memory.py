"""The benchmarks' memory figures: this process's peak, and the process
tree's (worker processes included) while a block runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from paperbot.bench.memory import TreePeak, peak_rss_mb


def test_peak_rss_is_positive() -> None:
    assert peak_rss_mb() > 1


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs Linux /proc")
def test_tree_peak_sees_a_child_process() -> None:
    grow = "b = bytearray(64 << 20); import time; time.sleep(0.5)"
    with TreePeak(every=0.01) as tree:
        subprocess.run([sys.executable, "-c", grow], check=True)
    assert tree.worker_mb >= 64
    assert tree.total_mb >= tree.worker_mb
    if Path("/proc/self/smaps_rollup").exists():
        # Proportional: the child's own 64 MB count whole, shared pages split.
        assert 64 <= tree.total_pss_mb <= tree.total_mb
