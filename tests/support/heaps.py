"""How many heaps (glibc malloc arenas) a process keeps, seen after a new
thread allocated (`services.memory.one_arena`)."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import tempfile
import threading


def heaps_after_a_thread() -> int:
    """glibc's arenas once a new thread has allocated blocks from malloc
    (kept until counted): 1 when every thread shares the main heap, 2 when
    that thread got one of its own."""
    kept: list[bytes] = []
    # Larger than pymalloc's blocks: taken from malloc by the thread itself.
    thread = threading.Thread(target=lambda: kept.extend(bytes(4096) for _ in range(64)))
    thread.start()
    thread.join()
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    with tempfile.TemporaryFile() as out:
        saved = os.dup(2)
        try:
            os.dup2(out.fileno(), 2)  # `malloc_stats` writes to stderr
            libc.malloc_stats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        lines = out.read().splitlines()
    return sum(line.startswith(b"Arena ") for line in lines)
