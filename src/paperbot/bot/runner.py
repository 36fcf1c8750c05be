"""Running the bot: start-up, logging, signals and a clean shutdown.

`run(settings, token)` opens and migrates the database, loads the configured
corpus (idempotent: files unchanged since the last load are skipped), logs
in (a rejected token raises `TokenRejected`), connects, starts the digest
scheduler once the bot is ready, and on SIGTERM/SIGINT stops the scheduler,
gives in-flight command handlers `bot.shutdown_grace_seconds` to finish,
then closes Discord and the database.

Test-only: `PAPERBOT_DISCORD_API=http://127.0.0.1:PORT` points discord.py at
a fake Discord (REST at `/api/v10`, gateway at `/gateway`); it is read
nowhere else and logged loudly when set.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import logging
import signal
import sys
from asyncio import FIRST_COMPLETED
from collections.abc import Mapping
from typing import Any

import aiohttp
import discord
import yarl

from paperbot.bot.client import PaperBot, bot_for
from paperbot.clock import utc_now
from paperbot.config import Settings
from paperbot.services.app import App
from paperbot.services.corpus import corpus_limits

log = logging.getLogger(__name__)

ENV_DISCORD_API = "PAPERBOT_DISCORD_API"
REDACTED = "[token redacted]"
#: Seconds from the signal to a closed Discord connection; the database closes after.
STOP_BUDGET = 9.5
#: Part of the budget kept for closing the connection after the grace.
CLOSE_RESERVE = 0.5
#: Seconds a login (with the setup hook and command sync) may take before giving up.
LOGIN_TIMEOUT = 120.0
# Tasks discord.py creates for an interaction being handled (see CommandTree and View).
_HANDLER_TASKS = ("CommandTree-invoker", "discord-ui-view-dispatch")


class TokenRejected(Exception):
    """Discord refused the token (HTTP 401 on login)."""


class DiscordUnavailable(Exception):
    """The gateway gave up: refused intents, or a connection beyond retries."""


class TokenRedactor(logging.Filter):
    """Replace the token wherever it would appear in a log line, tracebacks included."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self._token = token

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._token:
            return True
        message = record.getMessage()
        if self._token in message:
            record.msg = message.replace(self._token, REDACTED)
            record.args = None
        if record.exc_info:
            # Formatters (discord.py's colour one too) re-render exc_info; hand them
            # the redacted text instead.
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text = text.replace(self._token, REDACTED)
            record.exc_info = None
        elif record.exc_text:
            record.exc_text = record.exc_text.replace(self._token, REDACTED)
        if record.stack_info:
            record.stack_info = record.stack_info.replace(self._token, REDACTED)
        return True


def configure_logging(level: str, token: str, stream: Any = None) -> logging.Handler:
    """discord.py's `setup_logging` on the root logger, with the token redacted.

    Colours only on a terminal (discord.py would also colour inside any Docker
    container, which garbles journald and log files).
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    stream = stream or sys.stderr
    handler = logging.StreamHandler(stream)
    handler.addFilter(TokenRedactor(token))
    formatter: Any = discord.utils.MISSING
    if not (hasattr(stream, "isatty") and stream.isatty()):
        formatter = logging.Formatter(
            "[{asctime}] [{levelname:<8}] {name}: {message}", "%Y-%m-%d %H:%M:%S", style="{"
        )
    discord.utils.setup_logging(
        handler=handler, formatter=formatter, level=getattr(logging, level), root=True
    )
    # aiosqlite logs every single query at DEBUG: too much even for debugging the bot.
    logging.getLogger("aiosqlite").setLevel(max(logging.INFO, getattr(logging, level)))
    return handler


def point_discord_at(env: Mapping[str, str]) -> str | None:
    """Test-only: send discord.py's REST and gateway traffic to `PAPERBOT_DISCORD_API`."""
    base = env.get(ENV_DISCORD_API, "").strip().rstrip("/")
    if not base:
        return None
    url = yarl.URL(base)
    if url.scheme not in ("http", "https") or not url.host:
        raise ValueError(f"{ENV_DISCORD_API} must be an http(s) URL, got {base!r}")
    # Not `discord.http._set_api_version`: it would reset BASE to discord.com.
    discord.http.Route.BASE = f"{base}/api/v10"
    ws_scheme = "wss" if url.scheme == "https" else "ws"
    gateway = url.with_scheme(ws_scheme).with_path("/gateway")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway
    log.warning("%s is set: talking to %s instead of Discord (tests only)", ENV_DISCORD_API, base)
    return base


async def open_app(settings: Settings) -> App:
    """The App with the database migrated, the configured corpus loaded and
    the search index current."""
    app = await App.open(settings)
    try:
        await app.corpus.load(
            [settings.corpus.path],
            default_area=settings.corpus.default_area,
            now=utc_now(),
            # Never allow_shrink here: an emptied page must not remove papers
            # unattended; and a page loaded by hand from elsewhere is not
            # reverted by an older copy in the folder (both logged as warnings).
            startup=True,
            limits=corpus_limits(settings.corpus),
        )
        # Before logging in: a shard another live process runs is refused here.
        await app.digest.hold_shards()
        # Ready means ready: the search index is current (built in the
        # worker process if it must be) before the bot says so. The topic
        # matches follow in the background (the subscriptions cog's warm-up,
        # also in the worker): at 100,000 papers they take longer than the
        # index, and commands that need them say "thinking" meanwhile.
        prepared = await app.prepare(topics=False)
        log.info(
            "prepared for %d papers (search index %s) in %.1fs",
            prepared.papers,
            prepared.index_source,
            prepared.seconds,
        )
    except BaseException:
        await app.close()
        raise
    return app


def in_flight_handlers() -> set[asyncio.Task[Any]]:
    current = asyncio.current_task()
    return {
        task
        for task in asyncio.all_tasks()
        if task is not current and not task.done() and task.get_name().startswith(_HANDLER_TASKS)
    }


async def drain(grace: float) -> int:
    """Let commands being handled finish for up to `grace` seconds; return how many didn't."""
    pending = in_flight_handlers()
    if not pending or grace <= 0:
        return len(pending)
    log.info("waiting up to %.1fs for %d command(s) in flight", grace, len(pending))
    _done, still = await asyncio.wait(pending, timeout=grace)
    return len(still)


class SchedulerHandle:
    """The digest scheduler (`paperbot.bot.scheduler`), when that module exists."""

    def __init__(self, bot: PaperBot) -> None:
        self._bot = bot
        self._module: Any = None
        self._handle: Any = None

    async def start(self) -> bool:
        """Start it; a failure is logged and the bot keeps serving commands."""
        if importlib.util.find_spec("paperbot.bot.scheduler") is None:
            log.info("no digest scheduler module: daily digests are not scheduled")
            return False
        try:
            module = importlib.import_module("paperbot.bot.scheduler")
            handle = module.start(self._bot)
            self._handle = await handle if asyncio.iscoroutine(handle) else handle
        except Exception:  # search and subscriptions must survive a digest bug
            log.exception("the digest scheduler failed to start: no daily digests until restart")
            return False
        self._module = module
        return True

    async def stop(self) -> None:
        if self._module is None:
            return
        target = self._handle if hasattr(self._handle, "shutdown") else self._module
        result = target.shutdown() if target is self._handle else target.shutdown(self._handle)
        if asyncio.iscoroutine(result):
            await result


async def run(
    settings: Settings,
    token: str,
    *,
    stop: asyncio.Event | None = None,
    install_signals: bool = True,
) -> int:
    """Run until SIGTERM/SIGINT (or `stop` is set); return the exit code."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    if install_signals:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, _on_signal, stop, signum)
    app = await open_app(settings)
    bot = bot_for(app)
    scheduler = SchedulerHandle(bot)
    try:
        if not await _login(bot, token, stop):
            return 0
        connection = asyncio.create_task(bot.connect(), name="paperbot-gateway")
        ready = asyncio.create_task(bot.wait_until_ready())
        stopping = asyncio.create_task(stop.wait())
        await asyncio.wait({connection, ready, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if ready.done() and not stop.is_set():
            await scheduler.start()
            await asyncio.wait({connection, stopping}, return_when=asyncio.FIRST_COMPLETED)
        ready.cancel()
        stopping.cancel()
        if connection.done():
            _raise_gateway_failure(connection)
            return 0
        await _shutdown(bot, scheduler, settings.bot.shutdown_grace_seconds)
        with contextlib.suppress(asyncio.CancelledError):
            await connection
        return 0
    finally:
        if not bot.is_closed():
            await _close_bot(bot)
        await app.close()
        if install_signals:
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(signum)
        log.info("paperbot stopped")


async def _login(bot: PaperBot, token: str, stop: asyncio.Event) -> bool:
    """Log in (setup hook and command sync included); False when stopped first.

    A signal during a login that hangs must still end the process within
    STOP_BUDGET, and a login that can't reach Discord, or never answers, is
    one `DiscordUnavailable` line instead of an aiohttp traceback.
    """
    login = asyncio.create_task(bot.login(token), name="paperbot-login")
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({login, stopping}, timeout=LOGIN_TIMEOUT, return_when=FIRST_COMPLETED)
    finally:
        stopping.cancel()
        if not login.done():
            login.cancel()
            with contextlib.suppress(BaseException):
                await login
    if stop.is_set():
        return False
    if login.cancelled():
        raise DiscordUnavailable(
            f"Discord did not answer the login within {LOGIN_TIMEOUT:.0f} s; try again later"
        )
    try:
        login.result()
    except discord.LoginFailure as exc:
        raise TokenRejected(str(exc)) from None
    except (aiohttp.ClientError, OSError, TimeoutError) as exc:
        raise DiscordUnavailable(
            f"cannot reach Discord ({_reason(exc)}); try again later"
        ) from None
    return True


def _reason(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


async def _close_bot(bot: PaperBot) -> None:
    """Close the Discord client without letting a hung connection hold the exit."""
    try:
        async with asyncio.timeout(CLOSE_RESERVE * 4):
            await bot.close()
    except TimeoutError:
        log.warning("the Discord connection did not close in time: leaving it")


def _raise_gateway_failure(connection: asyncio.Task[None]) -> None:
    """Turn the gateway's own exception into one the CLI can word."""
    try:
        connection.result()
    except discord.PrivilegedIntentsRequired as exc:
        raise DiscordUnavailable("Discord refused the gateway intents the bot asked for") from exc
    except discord.DiscordException as exc:
        raise DiscordUnavailable(f"could not stay connected to Discord: {exc}") from exc


def _on_signal(stop: asyncio.Event, signum: int) -> None:
    if not stop.is_set():
        log.info("%s received: shutting down", signal.Signals(signum).name)
    stop.set()


async def _shutdown(bot: PaperBot, scheduler: SchedulerHandle, grace: float) -> None:
    """Stop within STOP_BUDGET seconds whatever hangs (the grace is at most 9 s)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + STOP_BUDGET
    try:
        async with asyncio.timeout(1.0):
            await scheduler.stop()
    except Exception:  # the shutdown must go on whatever the scheduler does
        log.exception("stopping the digest scheduler failed")
    grace = min(grace, max(0.0, deadline - loop.time() - CLOSE_RESERVE))
    unfinished = await drain(grace)
    if unfinished:
        log.warning("%d command(s) still running after %.1fs: closing anyway", unfinished, grace)
    try:
        async with asyncio.timeout(max(0.5, deadline - loop.time())):
            await bot.close()
    except TimeoutError:
        log.warning("the Discord connection did not close in time: leaving it")
