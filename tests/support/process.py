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


def run_python(
    *argv: object, timeout: float = 120, check: bool = False, **options: Any
) -> subprocess.CompletedProcess[str]:
    """`python ARGV...` run to its end from the repository root (so a `-c`
    child imports `tests.support`), output captured as text."""
    return subprocess.run(
        [sys.executable, *map(str, argv)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=check,
        **options,
    )


def run_paperbot(*argv: object, **options: Any) -> subprocess.CompletedProcess[str]:
    """`python -m paperbot ARGV...`, as `run_python` runs it."""
    return run_python("-m", "paperbot", *argv, **options)


def run_until_killed(code: str, *args: object) -> None:
    """Run a child Python that must end by SIGKILL (not an error of its own)."""
    result = run_python("-c", code, *args)
    assert result.returncode == -signal.SIGKILL, result.stderr[-2000:]
