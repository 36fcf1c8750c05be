"""Peak memory of this process, for benchmark reports."""

from __future__ import annotations

import resource
import sys


def peak_rss_mb() -> float:
    """Peak resident set size so far, in MiB (ru_maxrss is KiB on Linux)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
