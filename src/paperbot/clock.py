"""The one place outside tests that reads the wall clock.

`core/` never reads the clock (`now` is passed in); the edges (bot, CLI,
benchmarks) call `utc_now` so a test can swap one function.
"""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["utc_now"]


def utc_now() -> datetime:
    """The current time, timezone-aware in UTC."""
    return datetime.now(UTC)
