"""`python -m paperbot run` as a real process: no token, a rejected token, SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from paperbot.bot import client, runner
from paperbot.bot.runner import ENV_DISCORD_API
from paperbot.config import Settings
from tests.fake_discord import FakeDiscord, FakeUser
from tests.support.e2e import TOKEN, with_bot
from tests.support.process import STOP_WITHIN, finish, spawn
from tests.support.slow_extension import WORK_SECONDS


async def test_no_token_is_one_clear_line_and_exit_2(
    run_env: dict[str, str], tmp_path: Path
) -> None:
    process = await spawn(run_env, tmp_path)
    code, err = await finish(process, 30)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "set DISCORD_TOKEN" in lines[0]
    assert "Developer Portal" in lines[0]
    assert "Traceback" not in err


async def test_a_rejected_token_exits_1_with_a_clear_line(
    run_env: dict[str, str], tmp_path: Path, fake_discord: FakeDiscord
) -> None:
    env = run_env | {"DISCORD_TOKEN": "not-the-token", ENV_DISCORD_API: fake_discord.url}
    process = await spawn(env, tmp_path)
    code, err = await finish(process, 30)
    assert code == 1, err
    assert "paperbot: Discord rejected the token in DISCORD_TOKEN" in err
    assert "Traceback" not in err
    assert "not-the-token" not in err, "the token must never be logged"


@pytest.fixture
async def running(
    run_env: dict[str, str], tmp_path: Path, fake_discord: FakeDiscord
) -> AsyncIterator[tuple[asyncio.subprocess.Process, list[str]]]:
    env = run_env | {"DISCORD_TOKEN": TOKEN, ENV_DISCORD_API: fake_discord.url}
    process = await spawn(env, tmp_path)
    lines: list[str] = []
    assert process.stderr is not None
    deadline = time.monotonic() + 60
    while not any(" ready: logged in as " in line for line in lines):
        if time.monotonic() > deadline or process.returncode is not None:
            raise AssertionError("the bot never logged that it is ready:\n" + "".join(lines))
        line = await asyncio.wait_for(process.stderr.readline(), 60)
        if not line:
            raise AssertionError("the bot exited before it was ready:\n" + "".join(lines))
        lines.append(line.decode())
    yield process, lines
    if process.returncode is None:
        process.kill()
        await process.wait()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_signal_stops_cleanly_within_10_seconds(
    running: tuple[asyncio.subprocess.Process, list[str]],
    fake_discord: FakeDiscord,
    signum: signal.Signals,
) -> None:
    process, lines = running
    # The bot answers while running...
    assert fake_discord.identifies
    assert fake_discord.syncs
    guild = next(iter(fake_discord.guilds.values()))
    result = await fake_discord.slash("about", user=FakeUser(), guild=guild)
    assert result.embeds
    # ...and stops on the signal.
    started = time.monotonic()
    process.send_signal(signum)
    code, rest = await finish(process, STOP_WITHIN)
    elapsed = time.monotonic() - started
    log = "".join(lines) + rest
    assert code == 0, log
    assert elapsed < STOP_WITHIN
    assert f"{signum.name} received: shutting down" in log
    assert "paperbot stopped" in log
    assert "digest scheduler started" in log
    assert "digest scheduler stopped" in log
    assert log.index("digest scheduler stopped") < log.index("paperbot stopped")
    assert "Traceback" not in log, log
    assert TOKEN not in log, "the token must never be logged, even at DEBUG"
    assert not fake_discord._sockets, "the gateway connection must be closed"


@pytest.mark.parametrize(("grace", "delivered"), [(1.0, True), (0.0, False)])
async def test_a_reply_in_flight_finishes_within_the_grace(
    fake_discord: FakeDiscord,
    e2e_settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    grace: float,
    delivered: bool,
) -> None:
    """In process: `runner.run` with a stop event standing in for the signal.

    With no grace the bot closes under /slow's feet: the control case showing
    that the grace is what delivers the reply.
    """
    settings = with_bot(e2e_settings, shutdown_grace_seconds=grace)
    monkeypatch.setattr(client, "EXTENSIONS", (*client.EXTENSIONS, "tests.support.slow_extension"))
    stop = asyncio.Event()
    running_bot = asyncio.create_task(runner.run(settings, TOKEN, stop=stop, install_signals=False))
    while not (fake_discord.identifies and fake_discord._sockets):
        assert not running_bot.done(), running_bot
        await asyncio.sleep(0.01)
    guild = next(iter(fake_discord.guilds.values()))
    result = await fake_discord.slash("slow", user=FakeUser(), guild=guild, wait=False)
    await result.wait_until(lambda: result.callback is not None)
    assert result.deferred
    stop.set()  # what SIGTERM does, while /slow is still working
    assert await asyncio.wait_for(running_bot, STOP_WITHIN) == 0
    await asyncio.sleep(WORK_SECONDS * 2)  # time for a reply that should not come
    assert (result.content == "finished") is delivered
    assert not fake_discord._sockets
