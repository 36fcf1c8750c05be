"""End-to-end fixtures: the REAL discord.py client (our `PaperBot`) against a fake Discord.

Fixtures
--------
``fake_discord``  A started `tests.fake_discord.FakeDiscord` on 127.0.0.1 (ephemeral port),
                  installed into discord.py (`Route.BASE`, `DEFAULT_GATEWAY`), with one guild
                  ("ML reading group", channel #papers). At teardown the test FAILS if any
                  request body broke Discord's OpenAPI spec or the extra limits
                  (`fake_discord.violations`), or if the bot hit a route the fake lacks.
``e2e_settings``  `Settings` for a bot in tmp_path: database copied from a session-wide
                  template already holding the bundled corpus, the repo's topics.toml,
                  token "fake-token", global sync. Derive variants with `with_bot(settings, ...)`
                  (`tests.support.e2e`).
``start_bot``     `await start_bot(settings=None, **bot_options) -> PaperBot`: opens the App the
                  way `paperbot run` does (migrate + idempotent corpus load), logs in, connects,
                  waits for on_ready. Closed at teardown. Call it again (after `await
                  stop_bot(bot)`) to test a restart against the same database.
``run_env``       The environment for `python -m paperbot run` as a real process
                  (`tests.support.process`: `spawn`, `finish`).
``e2e``           The usual entry point: a running bot plus helpers, as an
                  `tests.support.e2e.E2E`:

    async def test_search(e2e):
        result = await e2e.slash("search", query="diffusion")          # plain member, guild
        assert result.ephemeral and "Diffusion" in result.text()
        setup = await e2e.slash("digest setup", user=e2e.admin, options={"channel": e2e.channel},
                                time="08:00")
        choices = await e2e.autocomplete("subscribe", focused="topic", topic="diff")
        page2 = await e2e.click(result.message, result.custom_ids[-1])

``slash`` returns an `InteractionResult` once the bot acknowledged the interaction (and, when it
deferred, once the first follow-up or edit arrived): `.callback_type`, `.ephemeral`,
`.message` (the original response as it stands, after edits), `.content`, `.embeds`,
`.custom_ids`, `.followups`, `.text()`, `.requests`, `.ack_seconds`. Keyword arguments are
option values, except `user`, `guild`, `channel` (where the command is typed), `locale` and
`wait`: pass options with those names in `options={...}` (e.g. `/digest setup channel:`).
A command Discord would not offer (not synced, hidden by `default_member_permissions`, not
in DMs) raises `CommandUnavailable`; options Discord's client would refuse raise `ValueError`.
`e2e.member` is a plain member, `e2e.admin` has Administrator, `e2e.dm(...)` sends from a DM.
Pass `locale="zh-CN"` for a Chinese-language user. `e2e.fake.fail("POST", r"/callback$", 429)`
programs a fault; `e2e.fake.requests` records every request.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from paperbot.bot.client import PaperBot
from paperbot.bot.runner import open_app
from paperbot.config import (
    BUNDLED_CORPUS,
    BUNDLED_TOPICS,
    BotSettings,
    CorpusSettings,
    DatabaseSettings,
    Settings,
    TopicsSettings,
)
from paperbot.services.corpus import load_corpus
from paperbot.storage.db import Database
from tests.fake_discord import FakeDiscord
from tests.support.e2e import E2E, READY_TIMEOUT, TOKEN, StartBot


@pytest.fixture(scope="session")
def corpus_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with the bundled corpus loaded, built once and copied per test."""
    path = tmp_path_factory.mktemp("e2e-template") / "paperbot.sqlite3"

    async def build() -> None:
        db = await Database.open(path)
        try:
            await load_corpus(db, [BUNDLED_CORPUS], default_area="预训练", now=datetime.now(UTC))
            # Fold the WAL into the main file so a plain copy carries everything.
            await db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            await db.close()

    asyncio.run(build())
    return path


@pytest.fixture
def e2e_settings(tmp_path: Path, corpus_template: Path) -> Settings:
    database = tmp_path / "paperbot.sqlite3"
    shutil.copyfile(corpus_template, database)
    return Settings(
        database=DatabaseSettings(path=database),
        corpus=CorpusSettings(path=BUNDLED_CORPUS),
        topics=TopicsSettings(path=BUNDLED_TOPICS),
        bot=BotSettings(token=SecretStr(TOKEN), shutdown_grace_seconds=1.0),
    )


@pytest.fixture
def run_env(tmp_path: Path, corpus_template: Path) -> dict[str, str]:
    """The environment for `python -m paperbot run` on a copy of the template database."""
    database = tmp_path / "paperbot.sqlite3"
    shutil.copyfile(corpus_template, database)
    config = tmp_path / "paperbot.toml"
    config.write_text(
        f'[database]\npath = "{database}"\n[topics]\npath = "{BUNDLED_TOPICS}"\n'
        '[bot]\nlog_level = "DEBUG"\nshutdown_grace_seconds = 2.0\n',
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERBOT_", "DISCORD_"))}
    env["PAPERBOT_CONFIG"] = str(config)
    env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord(token=TOKEN)
    await fake.start()
    fake.install()
    fake.add_guild("ML reading group")
    try:
        yield fake
    finally:
        await fake.stop()
    if fake.violations:
        pytest.fail(
            "the bot sent requests real Discord would reject:\n  " + "\n  ".join(fake.violations),
            pytrace=False,
        )


@pytest.fixture
async def start_bot(
    fake_discord: FakeDiscord,  # noqa: ARG001 -- the fake Discord must be serving before a bot starts
    e2e_settings: Settings,
) -> AsyncIterator[StartBot]:
    running: list[tuple[PaperBot, asyncio.Task[None]]] = []

    async def start(settings: Settings | None = None, **bot_options: Any) -> PaperBot:
        app = await open_app(settings or e2e_settings)
        bot_options.setdefault("guild_ready_timeout", 0.05)
        bot = PaperBot(app, **bot_options)
        await bot.login(TOKEN)
        connection = asyncio.create_task(bot.connect(), name="e2e-gateway")
        running.append((bot, connection))
        ready = asyncio.create_task(bot.wait_until_ready())
        done, _ = await asyncio.wait(
            {ready, connection}, timeout=READY_TIMEOUT, return_when=asyncio.FIRST_COMPLETED
        )
        if ready not in done:
            ready.cancel()
            if connection.done():
                connection.result()
            raise AssertionError("the bot did not become ready")
        return bot

    yield start
    for bot, connection in running:
        await _stop(bot, connection)


async def _stop(bot: PaperBot, connection: asyncio.Task[None]) -> None:
    if not bot.is_closed():
        await bot.close()
    with contextlib.suppress(asyncio.CancelledError, TimeoutError):
        await asyncio.wait_for(connection, 5)
    await bot.app.close()


@pytest.fixture
async def bot(start_bot: StartBot) -> PaperBot:
    return await start_bot()


@pytest.fixture
async def e2e(fake_discord: FakeDiscord, bot: PaperBot) -> E2E:
    return E2E(fake_discord, bot)
