"""Discord faults at start-up (issue 13, item 5): one line, and SIGTERM exits within 10 s."""

from __future__ import annotations

import asyncio
import signal
import socket
import time
from pathlib import Path

import pytest

from paperbot.bot.runner import ENV_DISCORD_API
from tests.fake_discord import FakeDiscord
from tests.support.e2e import TOKEN
from tests.support.process import STOP_WITHIN, finish, spawn


def unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_discord_unreachable_at_login_is_one_line(
    run_env: dict[str, str], tmp_path: Path
) -> None:
    env = run_env | {
        "DISCORD_TOKEN": TOKEN,
        ENV_DISCORD_API: f"http://127.0.0.1:{unused_port()}",
        "PAPERBOT_LOG_LEVEL": "WARNING",
    }
    process = await spawn(env, tmp_path)
    code, err = await finish(process, 60)
    assert code == 1, err
    assert "paperbot: cannot reach Discord" in err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("paperbot: cannot reach Discord")


async def wait_for_request(fake: FakeDiscord, method: str, pattern: str) -> None:
    deadline = time.monotonic() + 60
    while not fake.requests_to(method, pattern):
        assert time.monotonic() < deadline, "the bot never sent the request"
        await asyncio.sleep(0.05)


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", r"^/users/@me$"), ("PUT", r"/commands$")],
    ids=["stalled login", "stalled command sync"],
)
async def test_sigterm_during_a_stalled_start_exits_within_10_seconds(
    run_env: dict[str, str], tmp_path: Path, fake_discord: FakeDiscord, method: str, path: str
) -> None:
    fake_discord.stall(method, path)
    env = run_env | {"DISCORD_TOKEN": TOKEN, ENV_DISCORD_API: fake_discord.url}
    process = await spawn(env, tmp_path)
    await wait_for_request(fake_discord, method, path)
    await asyncio.sleep(0.5)
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    code, err = await finish(process, STOP_WITHIN)
    assert time.monotonic() - started < STOP_WITHIN
    assert code == 0, err
    assert "SIGTERM received: shutting down" in err
    assert "Traceback" not in err
