"""Handing freed heap back to the operating system between large steps."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import multiprocessing
from collections.abc import Callable

_M_MMAP_THRESHOLD = -3
"""glibc's `mallopt` parameter number for the mmap threshold."""

_M_ARENA_MAX = -8
"""glibc's `mallopt` parameter number for the most arenas (heaps) it keeps."""

LARGE_BLOCK = 1 << 20
"""Blocks from this size on are mapped apart in a worker process
(`hand_back_large_blocks`)."""


def _libc_function(name: str) -> Callable[..., int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        found: Callable[..., int] = getattr(libc, name)
    except (OSError, AttributeError):  # not glibc: nothing to hand back
        return None
    return found


_TRIM = _libc_function("malloc_trim")
_MALLOPT = _libc_function("mallopt")


def release_free_memory() -> None:
    """Return the heap freed by a load or an index build to the OS (glibc
    keeps it otherwise, and every later peak would stack on top of it)."""
    gc.collect()
    if _TRIM is not None:
        _TRIM(0)


def hand_back_large_blocks() -> bool:
    """In a worker process (never the loading process or the bot, whose
    allocations it would slow): every block of `LARGE_BLOCK` or more is
    mapped on its own, so freeing it hands it back to the OS at once.
    glibc's default raises that threshold to the size of each large block
    freed (up to 32 MB); from then on such blocks come from its heap and
    stay there when freed, and a build's successive large arrays and
    stored parts add up (~25 MB of the topic worker's peak at 100,000
    papers). True when set."""
    if _MALLOPT is None or multiprocessing.parent_process() is None:
        return False
    return bool(_MALLOPT(_M_MMAP_THRESHOLD, LARGE_BLOCK))


def one_arena() -> bool:
    """Every thread started from now on allocates from the main heap (glibc
    `M_ARENA_MAX` 1), for a process about to do a large load: else glibc
    gives each thread that allocates an arena of its own, and the database
    thread's (SQLite's pages, the rows it encodes) is another heap whose
    freed memory the main one cannot reuse: ~40 MB of the loading process's
    peak at 100,000 papers. Call it before the threads start (one that has
    allocated keeps its arena). The threads mostly wait for the GIL, so
    sharing one heap's lock costs nothing measurable. True when set."""
    if _MALLOPT is None:
        return False
    return bool(_MALLOPT(_M_ARENA_MAX, 1))
