"""A small fake Discord on 127.0.0.1: REST under /api/v10 and the gateway websocket.

The REAL discord.py client talks to it (see `FakeDiscord.install`). Every
request is recorded (`fake.requests`) and every JSON body is validated
against Discord's OpenAPI spec plus the limits it lacks (`validation.py`);
a problem is answered like Discord answers it (400, code 50035) and kept in
`fake.violations`, which the e2e fixtures assert empty at teardown, so a bad
payload fails the test that sent it.

The fake knows the commands the bot synced, and builds INTERACTION_CREATE
payloads from them exactly as Discord would (option types, resolved channels,
member permissions, `default_member_permissions` hiding commands).

The server is put together from one mixin per job, each in its own module:
`state` (what the fake knows; the world API tests use), `gateway` (websocket),
`interactions` (slash/autocomplete/click, built by `commands`), `rest` (record,
faults, validation, routing) with `webhooks` (callbacks, follow-ups),
`routes` (commands, channels, guilds) and `dms` (DM channels, closed DMs:
50007); `results` holds what tests inspect and `constants` Discord's wire
numbers. This module keeps every name it exported
before the split.
"""

from __future__ import annotations

import discord
import yarl
from aiohttp import web

from tests.fake_discord.commands import CommandUnavailable
from tests.fake_discord.constants import (
    ACK_DEADLINE,
    API_PREFIX,
    EPHEMERAL,
    LOADING,
    CallbackType,
)
from tests.fake_discord.dms import DmsMixin
from tests.fake_discord.interactions import InteractionsMixin
from tests.fake_discord.results import (
    InteractionResult,
    InteractionTimeout,
    RecordedRequest,
    button,
    custom_ids,
    message_text,
)
from tests.fake_discord.state import Fault

# The callback types under their names from before `constants.CallbackType`.
PONG = CallbackType.PONG
MESSAGE = CallbackType.CHANNEL_MESSAGE_WITH_SOURCE
DEFERRED_MESSAGE = CallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
DEFERRED_UPDATE = CallbackType.DEFERRED_UPDATE_MESSAGE
UPDATE = CallbackType.UPDATE_MESSAGE
AUTOCOMPLETE = CallbackType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT
MODAL = CallbackType.MODAL
BACKLOG = 1024
"""Connections the fake accepts waiting at once (see `start`)."""

__all__ = [
    "ACK_DEADLINE",
    "API_PREFIX",
    "AUTOCOMPLETE",
    "DEFERRED_MESSAGE",
    "DEFERRED_UPDATE",
    "EPHEMERAL",
    "LOADING",
    "MESSAGE",
    "MODAL",
    "PONG",
    "UPDATE",
    "CommandUnavailable",
    "FakeDiscord",
    "Fault",
    "InteractionResult",
    "InteractionTimeout",
    "RecordedRequest",
    "button",
    "custom_ids",
    "message_text",
]


class FakeDiscord(InteractionsMixin, DmsMixin):
    """REST + gateway on an ephemeral 127.0.0.1 port, for the real discord.py client."""

    # --- lifecycle ------------------------------------------------------------------
    async def start(self) -> None:
        app = web.Application(client_max_size=32 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        # Discord's edge takes any number of connections at once. A burst's
        # concurrent requests open as many connections, and past
        # aiohttp's default backlog of 128 the kernel dropped their SYNs
        # (its ListenOverflows count grew by ~17 per 200-search burst), which
        # TCP retries only a second later: the fake's delay, not the bot's.
        site = web.TCPSite(self._runner, "127.0.0.1", 0, backlog=BACKLOG)
        await site.start()
        # The ephemeral port the OS picked: (host, port) of the one listening socket.
        self.port = int(self._runner.addresses[0][1])

    async def stop(self) -> None:
        self._stopped.set()
        for ws in list(self._sockets):
            await ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
        self.uninstall()

    def install(self) -> None:
        """Point discord.py at this server (never `_set_api_version`: it resets BASE)."""
        old_base = discord.http.Route.BASE
        old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
        discord.http.Route.BASE = self.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)

        def restore() -> None:
            discord.http.Route.BASE = old_base
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

        self._restore.append(restore)

    def uninstall(self) -> None:
        while self._restore:
            self._restore.pop()()
