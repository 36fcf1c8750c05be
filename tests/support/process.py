"""Tests that run code in another process: `python -m paperbot ...` (the
e2e tests of start-up and shutdown, several shards), and child Pythons that
kill themselves mid-way (SIGKILL, Ctrl-C) to show what a restart finds."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, NoReturn

from paperbot.storage.backend import Database
from tests.support.app import REPO

#: How long a stopped bot may take to exit (issue 13: within 10 s).
STOP_WITHIN = 10.0

Sink = int | IO[Any] | None


async def spawn(
    env: dict[str, str],
    cwd: Path,
    *argv: str,
    stdout: Sink = asyncio.subprocess.PIPE,
    stderr: Sink = asyncio.subprocess.PIPE,
) -> asyncio.subprocess.Process:
    """`python -m paperbot ARGV...` (`run` when no ARGV is given)."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "paperbot",
        *(argv or ("run",)),
        cwd=cwd,
        env=env,
        stdout=stdout,
        stderr=stderr,
    )


async def finish(process: asyncio.subprocess.Process, within: float) -> tuple[int, str]:
    _out, err = await asyncio.wait_for(process.communicate(), within)
    assert process.returncode is not None
    return process.returncode, err.decode()


async def kill(process: asyncio.subprocess.Process) -> None:
    """SIGKILL: no shutdown, no cleanup, whatever the process was doing."""
    process.send_signal(signal.SIGKILL)
    await process.wait()


def sigkill_self(*_args: object, **_kwargs: object) -> NoReturn:
    """Die here as a SIGKILL does: nothing after it runs, flushes or catches
    it. Takes any arguments, so it can stand in for any step."""
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("still alive after SIGKILL")


async def sigkill_in_transaction(db: Database, sql: str, params: Sequence[object] = ()) -> NoReturn:
    """Write inside an open transaction, then die before it commits."""
    async with db.transaction() as conn:
        await conn.execute(sql, params)
        sigkill_self()


def run_python(code: str, *args: object, **options: Any) -> subprocess.CompletedProcess[str]:
    """`python -c CODE ARGS...` from the repository root (so the child
    imports `tests.support`), output captured as text, at most 120 s."""
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        **options,
    )


def run_until_killed(code: str, *args: object) -> None:
    """Run a child Python that must end by SIGKILL (not an error of its own)."""
    result = run_python(code, *args)
    assert result.returncode == -signal.SIGKILL, result.stderr[-2000:]
