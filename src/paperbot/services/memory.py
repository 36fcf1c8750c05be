"""Handing freed heap back to the operating system between large steps."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Callable


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc: nothing to hand back
        return None
    return trim


_TRIM = _malloc_trim()


def release_free_memory() -> None:
    """Return the heap freed by a load or an index build to the OS (glibc
    keeps it otherwise, and every later peak would stack on top of it)."""
    gc.collect()
    if _TRIM is not None:
        _TRIM(0)
