"""Benchmarks: `paperbot bench NAME` runs `paperbot.bench.NAME`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any


class BenchmarkRefused(Exception):
    """The benchmark as asked would measure nothing (e.g. an empty result)."""


def run_child(module: str, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """`python -m module args` in a new interpreter (a cold start, its own
    peak memory); its last line of output, JSON. `env` adds to ours, and the
    child never reads a config file of ours."""
    child_env = {**os.environ, **(env or {})}
    child_env.pop("PAPERBOT_CONFIG", None)
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        check=True,
        capture_output=True,
        text=True,
        env=child_env,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result
