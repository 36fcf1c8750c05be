"""Runner pieces: token redaction, logging set-up, the test-only API override, draining."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Iterator

import discord
import pytest
import yarl

from paperbot.bot import runner
from paperbot.bot.runner import REDACTED, TokenRedactor, configure_logging, drain

TOKEN = "MTA.secret-token.value"


def _record(
    msg: str, args: tuple[object, ...] = (), exc: BaseException | None = None
) -> logging.LogRecord:
    exc_info = (type(exc), exc, exc.__traceback__) if exc is not None else None
    return logging.LogRecord("t", logging.ERROR, __file__, 1, msg, args, exc_info)


@pytest.mark.parametrize(
    "record",
    [
        _record(f"token is {TOKEN}"),
        _record("token is %s", (TOKEN,)),
        _record("headers %r", ({"Authorization": f"Bot {TOKEN}"},)),
        _record("failed", exc=RuntimeError(f"bad header Bot {TOKEN}")),
    ],
)
def test_redactor_removes_the_token_everywhere(record: logging.LogRecord) -> None:
    assert TokenRedactor(TOKEN).filter(record) is True
    rendered = logging.Formatter().format(record)
    assert TOKEN not in rendered
    assert REDACTED in rendered


def test_redactor_leaves_other_records_alone() -> None:
    record = _record("nothing secret %d", (3,))
    TokenRedactor(TOKEN).filter(record)
    assert record.getMessage() == "nothing secret 3"


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


@pytest.mark.usefixtures("restore_logging")
def test_configure_logging_redacts_and_uses_plain_format_off_terminal() -> None:
    stream = io.StringIO()
    configure_logging("INFO", TOKEN, stream=stream)
    log = logging.getLogger("paperbot.somewhere")
    log.info("logging in with %s", TOKEN)
    log.debug("hidden at INFO")
    try:
        raise ValueError(TOKEN)
    except ValueError:
        log.exception("oops")
    output = stream.getvalue()
    assert TOKEN not in output
    assert output.count(REDACTED) == 2  # the message and the exception text
    assert "hidden at INFO" not in output
    assert "\x1b[" not in output, "no colour codes outside a terminal"
    assert "[INFO    ] paperbot.somewhere: logging in with" in output


@pytest.fixture
def restore_discord_urls() -> Iterator[None]:
    base = discord.http.Route.BASE
    gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    yield
    discord.http.Route.BASE = base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway


@pytest.mark.usefixtures("restore_discord_urls")
def test_point_discord_at_sets_rest_and_gateway() -> None:
    assert runner.point_discord_at({}) is None
    assert discord.http.Route.BASE == "https://discord.com/api/v10"
    runner.point_discord_at({runner.ENV_DISCORD_API: "http://127.0.0.1:8123/"})
    assert discord.http.Route.BASE == "http://127.0.0.1:8123/api/v10"
    assert (
        yarl.URL("ws://127.0.0.1:8123/gateway") == discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    )


@pytest.mark.usefixtures("restore_discord_urls")
def test_point_discord_at_refuses_a_non_url() -> None:
    with pytest.raises(ValueError, match=runner.ENV_DISCORD_API):
        runner.point_discord_at({runner.ENV_DISCORD_API: "127.0.0.1:8123"})


async def test_drain_waits_for_command_handlers_only() -> None:
    finished = asyncio.Event()

    async def handler() -> None:
        await asyncio.sleep(0)
        finished.set()

    stuck = asyncio.Event()
    command = asyncio.create_task(handler(), name="CommandTree-invoker")
    unrelated = asyncio.create_task(stuck.wait(), name="something-else")
    assert await drain(grace=5.0) == 0
    assert command.done()
    assert finished.is_set()
    assert not unrelated.done(), "drain must not wait for unrelated tasks"
    unrelated.cancel()


async def test_drain_reports_handlers_still_running_after_the_grace() -> None:
    never = asyncio.Event()
    task = asyncio.create_task(never.wait(), name="discord-ui-view-dispatch-123")
    assert await drain(grace=0.01) == 1
    assert await drain(grace=0) == 1
    task.cancel()


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (discord.PrivilegedIntentsRequired(None), "refused the gateway intents"),
        (discord.ConnectionClosed(None, shard_id=None, code=4000), "could not stay connected"),
    ],
)
async def test_a_gateway_failure_becomes_one_worded_error(
    error: discord.DiscordException, message: str
) -> None:
    async def fail() -> None:
        raise error

    task = asyncio.create_task(fail())
    await asyncio.wait({task})
    with pytest.raises(runner.DiscordUnavailable, match=message):
        runner._raise_gateway_failure(task)
