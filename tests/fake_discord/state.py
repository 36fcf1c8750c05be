"""The fake Discord's state (guilds, commands, messages, recordings) and its world API.

`FakeState` holds everything the gateway, interaction and REST mixins share;
`server.FakeDiscord` puts them together.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from tests.fake_discord.constants import ACK_DEADLINE, API_PREFIX
from tests.fake_discord.models import FakeChannel, FakeGuild, FakeUser
from tests.fake_discord.results import InteractionResult, RecordedRequest

#: When a REST request reached the fake (before its body was read and validated).
# aiohttp 3.14 wants typed request keys (a plain string warns); older ones lack them.
ARRIVED: Any = web.RequestKey("arrived", float) if hasattr(web, "RequestKey") else "arrived"


@dataclass
class Fault:
    """Answer the next `times` requests matching method + path regex with `status`."""

    method: str
    path: re.Pattern[str]
    status: int
    retry_after: float = 0.2
    times: int = 1
    hits: int = 0
    #: Never answer (until the fake stops): Discord stalling mid-request.
    stall: bool = False

    def matches(self, method: str, path: str) -> bool:
        return self.times > 0 and method == self.method and bool(self.path.search(path))


class FakeState:
    """What the fake Discord knows and has seen; the world tests set up and inspect."""

    def __init__(self, token: str = "fake-token") -> None:
        self.token = token
        self.bot = FakeUser(name="paperbot", bot=True)
        self.application_id = self.bot.id
        self.guilds: dict[int, FakeGuild] = {}
        self.requests: list[RecordedRequest] = []
        self.violations: list[str] = []
        self.faults: list[Fault] = []
        self._stopped = asyncio.Event()
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.syncs: list[tuple[int | None, list[dict[str, Any]]]] = []
        self.messages: dict[int, dict[str, Any]] = {}
        #: Bytes of every file the bot uploaded, by attachment id.
        self.attachment_data: dict[str, bytes] = {}
        self.channel_messages: dict[int, list[int]] = {}
        #: (channel id, nonce) -> message id, for `enforce_nonce` (the exactly-once digest).
        self.nonces: dict[tuple[int, str], int] = {}
        self.identifies: list[dict[str, Any]] = []
        self.interactions: dict[str, InteractionResult] = {}
        self.ack_deadline = ACK_DEADLINE
        self._sockets: list[web.WebSocketResponse] = []
        #: (shard id, shard count) each gateway connection identified with.
        self._socket_shards: dict[int, tuple[int, int]] = {}
        self._sequence = 0
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._restore: list[Callable[[], None]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return self.url + API_PREFIX

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    # --- the world ------------------------------------------------------------------
    def add_guild(self, name: str = "ML reading group", *, locale: str = "en-US") -> FakeGuild:
        guild = FakeGuild(name=name, locale=locale)
        guild.add_channel("papers")
        self.guilds[guild.id] = guild
        return guild

    def fail(
        self, method: str, path: str, status: int, *, times: int = 1, retry_after: float = 0.2
    ) -> Fault:
        """Answer the next `times` requests to METHOD matching the path regex with `status`."""
        fault = Fault(method.upper(), re.compile(path), status, retry_after, times)
        self.faults.append(fault)
        return fault

    def stall(self, method: str, path: str, *, times: int = 1_000_000) -> Fault:
        """Never answer the next `times` requests to METHOD matching the path regex."""
        fault = Fault(method.upper(), re.compile(path), 0, times=times, stall=True)
        self.faults.append(fault)
        return fault

    def requests_to(self, method: str, pattern: str) -> list[RecordedRequest]:
        regex = re.compile(pattern)
        return [r for r in self.requests if r.method == method and regex.search(r.path)]

    def channel_history(self, channel: FakeChannel) -> list[dict[str, Any]]:
        """Messages posted in a channel (not interaction replies), oldest first."""
        return [self.messages[i] for i in self.channel_messages.get(channel.id, [])]

    def commands_for(self, guild: FakeGuild | None) -> dict[str, dict[str, Any]]:
        """The commands Discord would offer in this guild (or in DMs for None)."""
        commands = {c["name"]: c for c in self.global_commands}
        if guild is not None:
            commands.update({c["name"]: c for c in self.guild_commands.get(guild.id, [])})
        return commands
