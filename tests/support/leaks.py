"""Connections and sockets a test leaves open, found once its event loop is closed.

Left alone, an unclosed asyncpg connection is collected whenever the garbage
collector next runs: in whatever later test that is (CI once failed a SQLite
scheduler test on another test's connection). `leaked_resources` runs the
collector with ResourceWarning as an error and returns what it reported, so
the test that leaked is the one that fails (`conftest.py`)."""

from __future__ import annotations

import gc
import sys
import warnings


def leaked_resources() -> list[str]:
    """One line per object the collector found unclosed (ResourceWarning)."""
    found: list[str] = []
    previous = sys.unraisablehook

    def record(unraisable: sys.UnraisableHookArgs) -> None:
        found.append(str(unraisable.exc_value))

    sys.unraisablehook = record
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ResourceWarning)
            gc.collect()
    finally:
        sys.unraisablehook = previous
    return found
