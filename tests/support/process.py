"""`python -m paperbot run` as a real process, for the e2e tests of start-up and shutdown."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

#: How long a stopped bot may take to exit (issue 13: within 10 s).
STOP_WITHIN = 10.0


async def spawn(env: dict[str, str], cwd: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "paperbot",
        "run",
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def finish(process: asyncio.subprocess.Process, within: float) -> tuple[int, str]:
    _out, err = await asyncio.wait_for(process.communicate(), within)
    assert process.returncode is not None
    return process.returncode, err.decode()
