"""Peak memory of this process (and of its worker processes), for benchmark reports."""

from __future__ import annotations

import os
import resource
import sys
import threading
from pathlib import Path
from types import TracebackType

_PAGE_MB = os.sysconf("SC_PAGE_SIZE") / (1024 * 1024) if hasattr(os, "sysconf") else 0.0


def peak_rss_mb() -> float:
    """Peak resident set size so far, in MiB (ru_maxrss is KiB on Linux)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def _descendants(pid: int) -> list[int]:
    """`pid`'s child processes, recursively (Linux /proc; empty elsewhere)."""
    found: list[int] = []
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            tasks = list(Path(f"/proc/{current}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                children = [int(c) for c in (task / "children").read_text().split()]
            except (OSError, ValueError):
                continue
            found += children
            pending += children
    return found


def _rss_mb(pid: int) -> float:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE_MB
    except (OSError, ValueError, IndexError):
        return 0.0


def _status_mb(path: str, field: str) -> float:
    """The kB figure on the line `field` of a /proc file, in MiB; 0 without it."""
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def _pss_mb(pid: int) -> float:
    """A process's proportional set size (a shared page counted as its share
    per process: the forkserver's preloaded modules, which the worker
    processes map copy-on-write, count once in a sum), in MiB; 0 without
    /proc/PID/smaps_rollup."""
    return _status_mb(f"/proc/{pid}/smaps_rollup", "Pss:")


def peak_mb(pid: int) -> float:
    """A process's own peak resident set so far (VmHWM, in MiB; 0 without
    /proc): unlike `ru_maxrss`, not the parent's carried across fork+exec."""
    return _status_mb(f"/proc/{pid}/status", "VmHWM:")


PSS_EVERY = 10
"""A process's PSS costs the kernel a walk of its pages (~4 ms for 300 MB,
its RSS ~0.02 ms): `TreePeak` reads it every tenth sample."""


class TreePeak:
    """Samples this process and every process below it (the worker processes)
    while the block runs: `total_mb`, the largest sum of their resident sets
    (the forkserver and every worker it forks counted whole, though the
    workers share its preloaded modules' pages and every process shares
    library pages: an upper bound), `total_pss_mb` beside it, the largest
    sum of their proportional set sizes (each shared page split among its
    sharers: what they hold together; sampled every `PSS_EVERY`th time
    only, so it may miss a short peak), and `worker_mb`, the largest peak
    resident set of any one descendant (its own high-water mark, so a short
    peak between samples counts). Linux only; elsewhere all stay 0. Sampling
    costs a little CPU on the machine measured: every 50 ms by default."""

    def __init__(self, every: float = 0.05) -> None:
        self._every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True, name="tree-peak")
        self.total_mb = 0.0
        self.total_pss_mb = 0.0
        self.worker_mb = 0.0

    def _sample(self) -> None:
        me = os.getpid()
        rounds = 0
        while not self._stop.is_set():
            pids = _descendants(me)
            self.worker_mb = max(self.worker_mb, *(peak_mb(pid) for pid in pids), 0.0)
            self.total_mb = max(self.total_mb, _rss_mb(me) + sum(map(_rss_mb, pids)))
            rounds += 1
            if rounds % PSS_EVERY == 1:
                self.total_pss_mb = max(self.total_pss_mb, _pss_mb(me) + sum(map(_pss_mb, pids)))
            self._stop.wait(self._every)

    def __enter__(self) -> TreePeak:
        if Path("/proc/self/statm").exists():
            self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
