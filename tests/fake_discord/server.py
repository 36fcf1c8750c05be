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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import discord
import yarl
from aiohttp import WSMsgType, web

from tests.fake_discord.models import (
    FakeChannel,
    FakeGuild,
    FakeUser,
    new_id,
    timestamp,
)
from tests.fake_discord.validation import spec_validator

log = logging.getLogger(__name__)

API_PREFIX = "/api/v10"
EPHEMERAL = 1 << 6
LOADING = 1 << 7
#: When a REST request reached the fake (before its body was read and validated).
# aiohttp 3.14 wants typed request keys (a plain string warns); older ones lack them.
_ARRIVED: Any = web.RequestKey("arrived", float) if hasattr(web, "RequestKey") else "arrived"
#: Discord drops an interaction not acknowledged within this many seconds.
ACK_DEADLINE = 3.0

# Interaction callback types.
PONG, MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE, AUTOCOMPLETE, MODAL = 1, 4, 5, 6, 7, 8, 9


class CommandUnavailable(Exception):
    """Discord would not offer this command to this user here (so it can't be invoked)."""


class InteractionTimeout(AssertionError):
    """The bot did not answer an interaction in time."""


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    body: Any
    authorization: str | None
    status: int = 0
    at: float = field(default_factory=time.monotonic)

    def __repr__(self) -> str:
        return f"<{self.method} {self.path} -> {self.status}>"


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


class InteractionResult:
    """What the bot did with one interaction: the callback, messages, follow-ups."""

    def __init__(self, fake: FakeDiscord, payload: dict[str, Any]) -> None:
        self._fake = fake
        self.payload = payload
        self.id = int(payload["id"])
        self.token: str = payload["token"]
        self.created = time.monotonic()
        self.callback: dict[str, Any] | None = None
        self.callback_at: float | None = None
        self.original_id: int | None = None
        self.followup_ids: list[int] = []
        self.requests: list[RecordedRequest] = []
        self.changed = asyncio.Condition()

    # --- what happened --------------------------------------------------------------
    @property
    def callback_type(self) -> int | None:
        return None if self.callback is None else int(self.callback["type"])

    @property
    def ack_seconds(self) -> float | None:
        return None if self.callback_at is None else self.callback_at - self.created

    @property
    def deferred(self) -> bool:
        return self.callback_type in (DEFERRED_MESSAGE, DEFERRED_UPDATE)

    @property
    def message(self) -> dict[str, Any] | None:
        """The original response as it stands now (after any edits)."""
        if self.original_id is None:
            return None
        return self._fake.messages.get(self.original_id)

    @property
    def followups(self) -> list[dict[str, Any]]:
        return [self._fake.messages[i] for i in self.followup_ids if i in self._fake.messages]

    @property
    def ephemeral(self) -> bool:
        message = self.message
        if message is not None:
            return bool(message["flags"] & EPHEMERAL)
        data = (self.callback or {}).get("data") or {}
        return bool((data.get("flags") or 0) & EPHEMERAL)

    @property
    def content(self) -> str:
        return (self.message or {}).get("content") or ""

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return list((self.message or {}).get("embeds") or [])

    @property
    def custom_ids(self) -> list[str]:
        return custom_ids(self.message or {})

    @property
    def choices(self) -> list[dict[str, Any]]:
        """Autocomplete choices (callback type 8)."""
        if self.callback_type != AUTOCOMPLETE:
            return []
        return list(((self.callback or {}).get("data") or {}).get("choices") or [])

    def text(self) -> str:
        """Everything a reader sees in the original response and follow-ups."""
        messages = [m for m in [self.message, *self.followups] if m]
        return "\n".join(message_text(m) for m in messages)

    # --- waiting --------------------------------------------------------------------
    async def wait_until(self, predicate: Callable[[], bool], within: float = 5.0) -> None:
        async with self.changed:
            try:
                await asyncio.wait_for(self.changed.wait_for(predicate), within)
            except TimeoutError:
                raise InteractionTimeout(
                    f"interaction {self.payload.get('data', {}).get('name')!r}: "
                    f"condition not met within {within}s; requests: {self.requests}"
                ) from None

    async def settle(self, quiet: float = 0.05, within: float = 5.0) -> None:
        """Wait until the bot sent nothing for this interaction for `quiet` seconds."""
        deadline = time.monotonic() + within
        seen = -1
        while time.monotonic() < deadline and seen != len(self.requests):
            seen = len(self.requests)
            await asyncio.sleep(quiet)

    async def _notify(self) -> None:
        async with self.changed:
            self.changed.notify_all()

    def __repr__(self) -> str:
        return f"<InteractionResult callback={self.callback_type} requests={self.requests}>"


def custom_ids(message: dict[str, Any]) -> list[str]:
    found = []
    for row in message.get("components") or []:
        for child in row.get("components") or []:
            if child.get("custom_id"):
                found.append(child["custom_id"])
    return found


def button(message: dict[str, Any], label: str) -> dict[str, Any]:
    """The button on `message` whose label contains `label` (custom ids are often random)."""
    for row in message.get("components") or []:
        for child in row.get("components") or []:
            if child.get("type") == 2 and label in (child.get("label") or ""):
                return dict(child)
    raise LookupError(f"no button labelled {label!r} on the message")


def message_text(message: dict[str, Any]) -> str:
    parts = [message.get("content") or ""]
    for embed in message.get("embeds") or []:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        for item in embed.get("fields") or []:
            parts += [item.get("name") or "", item.get("value") or ""]
        parts.append((embed.get("footer") or {}).get("text") or "")
    return "\n".join(p for p in parts if p)


class FakeDiscord:
    """REST + gateway on an ephemeral 127.0.0.1 port, for the real discord.py client."""

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
        self.channel_messages: dict[int, list[int]] = {}
        self.identifies: list[dict[str, Any]] = []
        self.interactions: dict[str, InteractionResult] = {}
        self.ack_deadline = ACK_DEADLINE
        self._sockets: list[web.WebSocketResponse] = []
        self._sequence = 0
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._restore: list[Callable[[], None]] = []

    # --- lifecycle ------------------------------------------------------------------
    async def start(self) -> None:
        app = web.Application(client_max_size=32 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        assert server.sockets
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    async def stop(self) -> None:
        self._stopped.set()
        for ws in list(self._sockets):
            await ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
        self.uninstall()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return self.url + API_PREFIX

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

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

    # --- the world ------------------------------------------------------------------
    def add_guild(self, name: str = "ML reading group", *, locale: str = "en-US") -> FakeGuild:
        guild = FakeGuild(name=name, locale=locale)
        guild.add_channel("papers")
        self.guilds[guild.id] = guild
        return guild

    async def join_guild(self, guild: FakeGuild) -> None:
        """The bot is added to a guild while running (GUILD_CREATE)."""
        self.guilds[guild.id] = guild
        await self.dispatch("GUILD_CREATE", guild.payload(self.bot))

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

    # --- gateway --------------------------------------------------------------------
    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        for ws in list(self._sockets):
            self._sequence += 1
            await ws.send_str(json.dumps({"op": 0, "t": event, "s": self._sequence, "d": data}))

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._sockets.append(ws)
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41250}}))
        try:
            async for frame in ws:
                if frame.type != WSMsgType.TEXT:
                    continue
                await self._on_gateway_message(ws, json.loads(frame.data))
        finally:
            self._sockets.remove(ws)
        return ws

    async def _on_gateway_message(self, ws: web.WebSocketResponse, message: dict[str, Any]) -> None:
        op = message.get("op")
        if op == 1:
            await ws.send_str(json.dumps({"op": 11}))
        elif op == 2:
            identify = message["d"]
            self.identifies.append(identify)
            if identify.get("token") != self.token:
                await ws.close(code=4004, message=b"Authentication failed.")
                return
            await self._send_ready(ws)
        elif op == 6:
            self._sequence += 1
            await ws.send_str(json.dumps({"op": 0, "t": "RESUMED", "s": self._sequence, "d": {}}))

    async def _send_ready(self, ws: web.WebSocketResponse) -> None:
        ready = {
            "v": 10,
            "user": {**self.bot.payload(), "verified": True, "mfa_enabled": False},
            "guilds": [{"id": str(g), "unavailable": True} for g in self.guilds],
            "session_id": f"session-{new_id()}",
            "resume_gateway_url": self.gateway_url,
            "shard": [0, 1],
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "session_type": "normal",
            "auth": {},
        }
        self._sequence += 1
        await ws.send_str(json.dumps({"op": 0, "t": "READY", "s": self._sequence, "d": ready}))
        for guild in self.guilds.values():
            self._sequence += 1
            frame = {
                "op": 0,
                "t": "GUILD_CREATE",
                "s": self._sequence,
                "d": guild.payload(self.bot),
            }
            await ws.send_str(json.dumps(frame))

    # --- interactions ---------------------------------------------------------------
    async def slash(
        self,
        command: str,
        /,
        *,
        user: FakeUser,
        guild: FakeGuild | None = None,
        channel: FakeChannel | None = None,
        locale: str = "en-US",
        wait: bool = True,
        options: dict[str, Any] | None = None,
        **more_options: Any,
    ) -> InteractionResult:
        """Invoke `/command` (or `"group sub"`) with options by name, as `user`.

        `channel` is where the command is typed; pass options whose names clash
        with these keywords (`channel`, `user`, `guild`, `locale`, `wait`) in
        `options={...}`.

        Raises `CommandUnavailable` when Discord would not offer the command
        (not synced here, hidden by `default_member_permissions`, not in DMs),
        and `ValueError` for options Discord's client would refuse to send.
        """
        values = {**(options or {}), **more_options}
        data = self._command_data(command, guild, user, values, focused=None)
        return await self._interact(2, data, user, guild, channel, locale, wait=wait)

    async def autocomplete(
        self,
        command: str,
        /,
        *,
        focused: str,
        user: FakeUser,
        guild: FakeGuild | None = None,
        channel: FakeChannel | None = None,
        locale: str = "en-US",
        options: dict[str, Any] | None = None,
        **more_options: Any,
    ) -> list[dict[str, Any]]:
        """What the bot suggests while `user` types into option `focused`."""
        values = {**(options or {}), **more_options}
        data = self._command_data(command, guild, user, values, focused=focused)
        result = await self._interact(4, data, user, guild, channel, locale, wait=True)
        if result.callback_type != AUTOCOMPLETE:
            raise AssertionError(f"autocomplete answered with callback {result.callback_type}")
        return result.choices

    async def click(
        self,
        message: dict[str, Any],
        custom_id: str,
        *,
        user: FakeUser,
        guild: FakeGuild | None = None,
        channel: FakeChannel | None = None,
        locale: str = "en-US",
    ) -> InteractionResult:
        """Press the button `custom_id` on a message the bot sent."""
        if custom_id not in custom_ids(message):
            raise ValueError(f"no button {custom_id!r} on that message: {custom_ids(message)}")
        button = next(
            child
            for row in message["components"]
            for child in row["components"]
            if child.get("custom_id") == custom_id
        )
        if button.get("disabled"):
            raise ValueError(f"button {custom_id!r} is disabled: Discord would not send the click")
        data = {"custom_id": custom_id, "component_type": button["type"]}
        return await self._interact(
            3,
            data,
            user,
            guild,
            channel,
            locale,
            wait=True,
            message=self.messages[int(message["id"])],
        )

    async def _interact(
        self,
        kind: int,
        data: dict[str, Any],
        user: FakeUser,
        guild: FakeGuild | None,
        channel: FakeChannel | None,
        locale: str,
        *,
        wait: bool,
        message: dict[str, Any] | None = None,
    ) -> InteractionResult:
        payload = self._interaction_payload(kind, data, user, guild, channel, locale, message)
        result = InteractionResult(self, payload)
        self.interactions[result.token] = result
        await self.dispatch("INTERACTION_CREATE", payload)
        if wait:
            await self.wait_answered(result)
        return result

    async def wait_answered(self, result: InteractionResult, within: float = 10.0) -> None:
        """Wait for the callback and, when deferred, for the first follow-up or edit."""
        await result.wait_until(lambda: result.callback is not None, within)
        if result.callback_type == DEFERRED_MESSAGE:
            await result.wait_until(
                lambda: any(
                    r.path.startswith("/webhooks/") and 200 <= r.status < 300
                    for r in result.requests
                ),
                within,
            )
        await result.settle()

    def _interaction_payload(
        self,
        kind: int,
        data: dict[str, Any],
        user: FakeUser,
        guild: FakeGuild | None,
        channel: FakeChannel | None,
        locale: str,
        message: dict[str, Any] | None,
    ) -> dict[str, Any]:
        interaction_id = new_id()
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": kind,
            "data": data,
            "token": f"interaction-token-{interaction_id}",
            "version": 1,
            "locale": locale,
            "attachment_size_limit": 10 * 1024 * 1024,
            "entitlements": [],
            "entitlement_sku_ids": [],
        }
        if message is not None:
            payload["message"] = message
        if guild is not None:
            channel = channel or guild.channels[0]
            permissions = user.permissions
            payload |= {
                "guild_id": str(guild.id),
                "guild": {"id": str(guild.id), "locale": guild.locale, "features": []},
                "guild_locale": guild.locale,
                "channel_id": str(channel.id),
                "channel": channel.payload(),
                "member": user.member_payload(permissions=permissions),
                "app_permissions": str(channel.bot_permissions.value),
                "authorizing_integration_owners": {"0": str(guild.id)},
                "context": 0,
            }
        else:
            dm_id = new_id()
            payload |= {
                "user": user.payload(),
                "channel_id": str(dm_id),
                "channel": {
                    "id": str(dm_id),
                    "type": 1,
                    "last_message_id": None,
                    "flags": 0,
                    "recipients": [user.payload()],
                },
                "app_permissions": str(discord.Permissions(view_channel=True).value),
                "authorizing_integration_owners": {"0": str(user.id)},
                "context": 1,
            }
        return payload

    def _command_data(
        self,
        command: str,
        guild: FakeGuild | None,
        user: FakeUser,
        options: dict[str, Any],
        *,
        focused: str | None,
    ) -> dict[str, Any]:
        name, *path = command.split()
        registered = self.commands_for(guild).get(name)
        if registered is None:
            raise CommandUnavailable(f"/{name} is not synced for this guild/DM")
        self._check_visible(registered, guild, user)
        data: dict[str, Any] = {"id": registered["id"], "name": name, "type": 1}
        if guild is not None and registered.get("guild_id"):
            data["guild_id"] = registered["guild_id"]
        container, schema_options = _descend(data, registered.get("options") or [], path)
        if any(o["type"] in (1, 2) for o in schema_options):
            raise ValueError(f"/{command} needs a subcommand")
        resolved: dict[str, dict[str, Any]] = {}
        values = []
        for key, value in options.items():
            option = next((o for o in schema_options if o["name"] == key), None)
            if option is None:
                raise ValueError(f"/{command} has no option {key!r}")
            values.append(self._option_value(option, value, resolved, focused == key, user))
        _check_required(command, schema_options, options, focused)
        container["options"] = values
        if resolved:
            data["resolved"] = resolved
        return data

    def _check_visible(
        self, command: dict[str, Any], guild: FakeGuild | None, user: FakeUser
    ) -> None:
        if guild is None:
            contexts = command.get("contexts")
            allowed = 1 in contexts if contexts is not None else command.get("dm_permission", True)
            if not allowed:
                raise CommandUnavailable(f"/{command['name']} is not offered in DMs")
            return
        required = command.get("default_member_permissions")
        if required is None:
            return
        needed = discord.Permissions(int(required))
        has = user.permissions
        if not (has.administrator or needed.is_subset(has)):
            raise CommandUnavailable(
                f"/{command['name']} needs {needed.value} (default_member_permissions)"
            )

    def _option_value(
        self,
        option: dict[str, Any],
        value: Any,
        resolved: dict[str, dict[str, Any]],
        is_focused: bool,
        user: FakeUser,
    ) -> dict[str, Any]:
        kind = option["type"]
        entry: dict[str, Any] = {"name": option["name"], "type": kind}
        if is_focused:
            # While typing, Discord sends the raw text for any option type.
            return entry | {"value": str(value), "focused": True}
        if kind == 3:
            _check_string(option, value)
        elif kind in (4, 10):
            _check_number(option, value)
        elif kind == 5:
            if not isinstance(value, bool):
                raise ValueError(f"{option['name']}: needs a bool")
        elif kind == 7:
            value = _resolve_channel(option, value, resolved, user)
        elif kind == 6:
            value = _resolve_user(option, value, resolved)
        choices = option.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise ValueError(f"{option['name']}: Discord only sends one of the choices")
        return entry | {"value": value}

    # --- REST -----------------------------------------------------------------------
    async def _rest(self, request: web.Request) -> web.StreamResponse:
        # Discord's 3-second deadline is about when the callback *arrives*;
        # the time this fake then spends validating the body against the
        # OpenAPI spec (on the test's own CPU and event loop) is not the bot's.
        request[_ARRIVED] = time.monotonic()
        path = "/" + request.match_info["tail"]
        body: Any = None
        raw = await request.read()
        if raw:
            if request.content_type != "application/json":
                return self._violation(request, path, [f"body sent as {request.content_type}"])
            body = json.loads(raw)
        record = RecordedRequest(
            request.method, path, dict(request.query), body, request.headers.get("Authorization")
        )
        self.requests.append(record)
        response = await self._handle(request, path, body, record)
        record.status = response.status
        result = self._interaction_for(path)
        if result is not None:
            result.requests.append(record)
            await result._notify()
        return response

    def _interaction_for(self, path: str) -> InteractionResult | None:
        match = re.match(r"^/(?:interactions/\d+|webhooks/\d+)/([^/]+)", path)
        return self.interactions.get(match.group(1)) if match else None

    async def _handle(
        self, request: web.Request, path: str, body: Any, record: RecordedRequest
    ) -> web.Response:
        method = request.method
        for fault in self.faults:
            if fault.matches(method, path):
                fault.times -= 1
                fault.hits += 1
                if fault.stall:
                    await self._stopped.wait()
                    return _json({"message": "503: stalled", "code": 0}, 503)
                return _fault_response(fault)
        problems = spec_validator().validate(method, path, body)
        if problems:
            return self._violation(request, path, problems)
        if not self._authorized(path, record):
            return _json({"message": "401: Unauthorized", "code": 0}, 401)
        for pattern, handler_method, handler in self._routes():
            match = re.match(pattern, path)
            if match and handler_method == method:
                return await handler(request, body, *match.groups())
        self.violations.append(f"{method} {path}: the fake Discord does not implement this route")
        return _json({"message": "404: Not Found", "code": 0}, 404)

    def _authorized(self, path: str, record: RecordedRequest) -> bool:
        if path.startswith(("/interactions/", "/webhooks/")):
            if record.authorization is not None:
                self.violations.append(f"{path}: interaction routes carry no Authorization")
            return True
        return record.authorization == f"Bot {self.token}"

    def _violation(self, request: web.Request, path: str, problems: list[str]) -> web.Response:
        self.violations.extend(problems)
        log.error("invalid request %s %s: %s", request.method, path, problems)
        return _json(
            {"code": 50035, "message": "Invalid Form Body", "errors": {"_errors": problems}}, 400
        )

    def _routes(self) -> Iterator[tuple[str, str, Any]]:
        app = r"(\d+)"
        yield r"^/users/@me$", "GET", self._get_me
        yield r"^/oauth2/applications/@me$", "GET", self._get_application
        yield rf"^/applications/{app}/commands$", "PUT", self._put_global_commands
        yield rf"^/applications/{app}/commands$", "GET", self._get_global_commands
        yield rf"^/applications/{app}/guilds/(\d+)/commands$", "PUT", self._put_guild_commands
        yield rf"^/applications/{app}/guilds/(\d+)/commands$", "GET", self._get_guild_commands
        yield r"^/interactions/(\d+)/([^/]+)/callback$", "POST", self._callback
        yield rf"^/webhooks/{app}/([^/]+)$", "POST", self._followup
        yield rf"^/webhooks/{app}/([^/]+)/messages/(@original|\d+)$", "PATCH", self._edit_webhook
        yield rf"^/webhooks/{app}/([^/]+)/messages/(@original|\d+)$", "GET", self._get_webhook
        yield rf"^/webhooks/{app}/([^/]+)/messages/(@original|\d+)$", "DELETE", self._del_webhook
        yield r"^/channels/(\d+)$", "GET", self._get_channel
        yield r"^/channels/(\d+)/messages$", "POST", self._post_message
        yield r"^/channels/(\d+)/messages$", "GET", self._get_messages
        yield r"^/channels/(\d+)/messages/(\d+)$", "GET", self._get_message
        yield r"^/channels/(\d+)/messages/(\d+)$", "PATCH", self._edit_message
        yield r"^/channels/(\d+)/messages/(\d+)$", "DELETE", self._delete_message
        yield r"^/guilds/(\d+)$", "GET", self._get_guild
        yield r"^/guilds/(\d+)/channels$", "GET", self._get_guild_channels

    # users / application
    async def _get_me(self, _request: web.Request, _body: Any) -> web.Response:
        return _json({**self.bot.payload(), "verified": True, "mfa_enabled": False})

    async def _get_application(self, _request: web.Request, _body: Any) -> web.Response:
        owner = FakeUser(name="owner")
        return _json(
            {
                "id": str(self.application_id),
                "name": "paperbot",
                "icon": None,
                "description": "paper digests",
                "summary": "",
                "type": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "verify_key": "0" * 64,
                "flags": 0,
                "owner": owner.payload(),
                "team": None,
                "bot": self.bot.payload(),
                "tags": [],
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "integration_types_config": {"0": {}},
            }
        )

    # commands
    def _store_commands(
        self, guild_id: int | None, payload: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        previous = (
            self.global_commands if guild_id is None else self.guild_commands.get(guild_id, [])
        )
        ids = {c["name"]: c["id"] for c in previous}
        stored = []
        for command in payload:
            entry = dict(command)
            entry["id"] = ids.get(command["name"]) or str(new_id())
            entry["application_id"] = str(self.application_id)
            entry["version"] = str(new_id())
            entry.setdefault("type", 1)
            entry.setdefault("description", "")
            if guild_id is not None:
                entry["guild_id"] = str(guild_id)
            stored.append(entry)
        if guild_id is None:
            self.global_commands = stored
        else:
            self.guild_commands[guild_id] = stored
        self.syncs.append((guild_id, stored))
        return stored

    async def _put_global_commands(self, _r: web.Request, body: Any, _app: str) -> web.Response:
        return _json(self._store_commands(None, body or []))

    async def _get_global_commands(self, _r: web.Request, _body: Any, _app: str) -> web.Response:
        return _json(self.global_commands)

    async def _put_guild_commands(
        self, _r: web.Request, body: Any, _app: str, guild_id: str
    ) -> web.Response:
        return _json(self._store_commands(int(guild_id), body or []))

    async def _get_guild_commands(
        self, _r: web.Request, _body: Any, _app: str, guild_id: str
    ) -> web.Response:
        return _json(self.guild_commands.get(int(guild_id), []))

    # interaction callback and webhooks
    async def _callback(
        self, request: web.Request, body: Any, interaction_id: str, token: str
    ) -> web.Response:
        result = self.interactions.get(token)
        if result is None or str(result.id) != interaction_id:
            return _json({"message": "Unknown interaction", "code": 10062}, 404)
        if result.callback is not None:
            return _json(
                {"message": "Interaction has already been acknowledged.", "code": 40060}, 400
            )
        arrived = request.get(_ARRIVED, time.monotonic())
        late = arrived - result.created
        if late > self.ack_deadline:
            self.violations.append(
                f"interaction {result.payload['data'].get('name') or result.payload['data']}: "
                f"acknowledged after {late:.2f}s (Discord allows {self.ack_deadline:.0f}s)"
            )
            return _json({"message": "Unknown interaction", "code": 10062}, 404)
        result.callback = body
        result.callback_at = arrived
        kind = body["type"]
        data = body.get("data") or {}
        message: dict[str, Any] | None = None
        if kind in (MESSAGE, DEFERRED_MESSAGE):
            flags = (data.get("flags") or 0) & EPHEMERAL
            if kind == DEFERRED_MESSAGE:
                flags |= LOADING
                data = {}
            message = self._new_message(result, data, flags=flags)
            result.original_id = int(message["id"])
        elif kind in (UPDATE, DEFERRED_UPDATE):
            source = result.payload.get("message")
            if source is None:
                return _json({"message": "Invalid interaction type", "code": 50035}, 400)
            message = self.messages[int(source["id"])]
            if kind == UPDATE:
                _apply_edit(message, data)
            result.original_id = int(message["id"])
        if request.query.get("with_response") not in ("1", "true", "True"):
            return web.Response(status=204)
        return _json(_callback_reply(result, kind, message))

    def _interaction_or_404(self, token: str) -> InteractionResult | web.Response:
        result = self.interactions.get(token)
        if result is None or result.callback is None:
            # Follow-ups before the callback (or with an unknown token) fail on Discord too.
            return _json({"message": "Unknown Webhook", "code": 10015}, 404)
        return result

    async def _followup(
        self, request: web.Request, body: Any, _app: str, token: str
    ) -> web.Response:
        result = self._interaction_or_404(token)
        if isinstance(result, web.Response):
            return result
        data = body or {}
        flags = (data.get("flags") or 0) & EPHEMERAL
        original = result.message
        if original is not None and original["flags"] & LOADING:
            # The first follow-up after a deferral replaces the "thinking…" message.
            _apply_edit(original, data)
            original["flags"] &= ~LOADING
            message = original
        else:
            message = self._new_message(result, data, flags=flags)
            result.followup_ids.append(int(message["id"]))
        if request.query.get("wait") in ("1", "true", "True"):
            return _json(message)
        return web.Response(status=204)

    def _webhook_message(self, token: str, message_id: str) -> dict[str, Any] | web.Response:
        result = self._interaction_or_404(token)
        if isinstance(result, web.Response):
            return result
        if message_id == "@original":
            message = result.message
        else:
            message = self.messages.get(int(message_id))
            if message is not None and int(message["id"]) not in (
                result.original_id,
                *result.followup_ids,
            ):
                message = None
        if message is None:
            return _json({"message": "Unknown Message", "code": 10008}, 404)
        return message

    async def _edit_webhook(
        self, _r: web.Request, body: Any, _app: str, token: str, message_id: str
    ) -> web.Response:
        message = self._webhook_message(token, message_id)
        if isinstance(message, web.Response):
            return message
        _apply_edit(message, body or {})
        message["flags"] &= ~LOADING
        return _json(message)

    async def _get_webhook(
        self, _r: web.Request, _body: Any, _app: str, token: str, message_id: str
    ) -> web.Response:
        message = self._webhook_message(token, message_id)
        return message if isinstance(message, web.Response) else _json(message)

    async def _del_webhook(
        self, _r: web.Request, _body: Any, _app: str, token: str, message_id: str
    ) -> web.Response:
        message = self._webhook_message(token, message_id)
        if isinstance(message, web.Response):
            return message
        self.messages.pop(int(message["id"]), None)
        return web.Response(status=204)

    # channels
    def _channel(self, channel_id: str) -> FakeChannel | None:
        for guild in self.guilds.values():
            for channel in guild.channels:
                if channel.id == int(channel_id):
                    return channel
        return None

    async def _get_channel(self, _r: web.Request, _body: Any, channel_id: str) -> web.Response:
        channel = self._channel(channel_id)
        if channel is None:
            return _json({"message": "Unknown Channel", "code": 10003}, 404)
        return _json(channel.payload())

    async def _post_message(self, _r: web.Request, body: Any, channel_id: str) -> web.Response:
        channel = self._channel(channel_id)
        if channel is None:
            return _json({"message": "Unknown Channel", "code": 10003}, 404)
        perms = channel.bot_permissions
        if not (perms.view_channel and perms.send_messages):
            return _json({"message": "Missing Permissions", "code": 50013}, 403)
        data = dict(body or {})
        if data.get("embeds") and not perms.embed_links:
            data["embeds"] = []  # Discord silently drops embeds without Embed Links.
        message = self._base_message(channel.id, data, flags=0, message_type=0)
        message["guild_id"] = str(channel.guild_id)
        self.messages[int(message["id"])] = message
        self.channel_messages.setdefault(channel.id, []).append(int(message["id"]))
        return _json(message)

    async def _get_messages(
        self, request: web.Request, _body: Any, channel_id: str
    ) -> web.Response:
        channel = self._channel(channel_id)
        if channel is None:
            return _json({"message": "Unknown Channel", "code": 10003}, 404)
        if not channel.bot_permissions.read_message_history:
            return _json([])
        limit = int(request.query.get("limit", "50"))
        ids = self.channel_messages.get(channel.id, [])
        newest_first = [self.messages[i] for i in reversed(ids) if i in self.messages]
        return _json(newest_first[:limit])

    async def _get_message(
        self, _r: web.Request, _body: Any, channel_id: str, message_id: str
    ) -> web.Response:
        message = self.messages.get(int(message_id))
        if message is None or message["channel_id"] != channel_id:
            return _json({"message": "Unknown Message", "code": 10008}, 404)
        return _json(message)

    async def _edit_message(
        self, _r: web.Request, body: Any, channel_id: str, message_id: str
    ) -> web.Response:
        message = self.messages.get(int(message_id))
        if message is None or message["channel_id"] != channel_id:
            return _json({"message": "Unknown Message", "code": 10008}, 404)
        _apply_edit(message, body or {})
        return _json(message)

    async def _delete_message(
        self, _r: web.Request, _body: Any, channel_id: str, message_id: str
    ) -> web.Response:
        message = self.messages.pop(int(message_id), None)
        if message is None:
            return _json({"message": "Unknown Message", "code": 10008}, 404)
        with contextlib.suppress(ValueError):
            self.channel_messages.get(int(channel_id), []).remove(int(message_id))
        return web.Response(status=204)

    async def _get_guild(self, _r: web.Request, _body: Any, guild_id: str) -> web.Response:
        guild = self.guilds.get(int(guild_id))
        if guild is None:
            return _json({"message": "Unknown Guild", "code": 10004}, 404)
        return _json(guild.payload(self.bot))

    async def _get_guild_channels(self, _r: web.Request, _body: Any, guild_id: str) -> web.Response:
        guild = self.guilds.get(int(guild_id))
        if guild is None:
            return _json({"message": "Unknown Guild", "code": 10004}, 404)
        return _json([c.payload() for c in guild.channels])

    # messages
    def _base_message(
        self, channel_id: int, data: dict[str, Any], *, flags: int, message_type: int
    ) -> dict[str, Any]:
        return {
            "id": str(new_id()),
            "channel_id": str(channel_id),
            "author": self.bot.payload(),
            "content": data.get("content") or "",
            "embeds": [{"type": "rich", **e} for e in data.get("embeds") or []],
            "components": data.get("components") or [],
            "attachments": [],
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": False,
            "timestamp": timestamp(),
            "edited_timestamp": None,
            "flags": flags,
            "type": message_type,
        }

    def _new_message(
        self, result: InteractionResult, data: dict[str, Any], *, flags: int
    ) -> dict[str, Any]:
        payload = result.payload
        message = self._base_message(int(payload["channel_id"]), data, flags=flags, message_type=20)
        user = payload.get("member", {}).get("user") or payload.get("user")
        message |= {
            "application_id": str(self.application_id),
            "webhook_id": str(self.application_id),
            "interaction_metadata": {
                "id": str(result.id),
                "type": payload["type"],
                "user": user,
                "authorizing_integration_owners": payload.get("authorizing_integration_owners", {}),
            },
        }
        if "guild_id" in payload:
            message["guild_id"] = payload["guild_id"]
        self.messages[int(message["id"])] = message
        return message


def _apply_edit(message: dict[str, Any], data: dict[str, Any]) -> None:
    if "content" in data:
        message["content"] = data["content"] or ""
    if "embeds" in data:
        message["embeds"] = [{"type": "rich", **e} for e in data["embeds"] or []]
    if "components" in data:
        message["components"] = data["components"] or []
    if "flags" in data and data["flags"] is not None:
        message["flags"] = (message["flags"] & (EPHEMERAL | LOADING)) | data["flags"]
    message["edited_timestamp"] = timestamp()


def _json(data: Any, status: int = 200) -> web.Response:
    # discord.py only parses JSON when Content-Type is exactly application/json.
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


def _fault_response(fault: Fault) -> web.Response:
    if fault.status == 429:
        return web.Response(
            status=429,
            body=json.dumps(
                {
                    "message": "You are being rate limited.",
                    "retry_after": fault.retry_after,
                    "global": False,
                }
            ).encode(),
            headers={
                "Content-Type": "application/json",
                # Without Via discord.py takes a 429 for a Cloudflare ban.
                "Via": "1.1 google",
                "Retry-After": str(max(1, round(fault.retry_after))),
                "X-RateLimit-Scope": "user",
            },
        )
    return _json({"message": f"{fault.status}: Internal Server Error", "code": 0}, fault.status)


def _descend(
    data: dict[str, Any], schema_options: list[dict[str, Any]], path: list[str]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Nest one option level per subcommand (group) in `path`; return the
    innermost container and the schema of the options it takes."""
    container = data
    for sub in path:
        found = next((o for o in schema_options if o["name"] == sub and o["type"] in (1, 2)), None)
        if found is None:
            raise CommandUnavailable(f"/{data['name']} has no subcommand {sub!r}")
        inner: dict[str, Any] = {"name": sub, "type": found["type"], "options": []}
        container.setdefault("options", []).append(inner)
        container, schema_options = inner, found.get("options") or []
    return container, schema_options


def _check_required(
    command: str,
    schema_options: list[dict[str, Any]],
    options: dict[str, Any],
    focused: str | None,
) -> None:
    if focused is None:
        missing = [
            o["name"] for o in schema_options if o.get("required") and o["name"] not in options
        ]
        if missing:
            raise ValueError(f"/{command}: Discord requires {missing}")
    elif focused not in options:
        raise ValueError(f"focused option {focused!r} needs a (partial) value")


def _check_string(option: dict[str, Any], value: Any) -> None:
    if not isinstance(value, str):
        raise ValueError(f"{option['name']}: Discord sends strings for STRING options")
    low, high = option.get("min_length", 0), option.get("max_length", 6000)
    if not low <= len(value) <= high:
        raise ValueError(f"{option['name']}: Discord's client enforces {low}-{high} chars")


def _check_number(option: dict[str, Any], value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{option['name']}: needs a number")
    low, high = option.get("min_value"), option.get("max_value")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{option['name']}: Discord's client enforces {low}..{high}")


def _resolve_channel(
    option: dict[str, Any], value: Any, resolved: dict[str, dict[str, Any]], user: FakeUser
) -> str:
    target = value if isinstance(value, FakeChannel) else None
    if target is None:
        raise ValueError(f"{option['name']}: pass a FakeChannel")
    allowed_types = option.get("channel_types")
    if allowed_types and target.type not in allowed_types:
        raise ValueError(f"{option['name']}: Discord only offers {allowed_types}")
    # The resolved channel carries the invoking member's permissions in it.
    resolved.setdefault("channels", {})[str(target.id)] = target.resolved_payload(user.permissions)
    return str(target.id)


def _resolve_user(option: dict[str, Any], value: Any, resolved: dict[str, dict[str, Any]]) -> str:
    if not isinstance(value, FakeUser):
        raise ValueError(f"{option['name']}: pass a FakeUser")
    resolved.setdefault("users", {})[str(value.id)] = value.payload()
    member = value.member_payload(permissions=value.permissions)
    member.pop("user")
    resolved.setdefault("members", {})[str(value.id)] = member
    return str(value.id)


def _callback_reply(
    result: InteractionResult, kind: int, message: dict[str, Any] | None
) -> dict[str, Any]:
    """The body Discord returns for a callback sent `with_response`."""
    reply: dict[str, Any] = {
        "interaction": {
            "id": str(result.id),
            "type": result.payload["type"],
            "response_message_loading": kind == DEFERRED_MESSAGE,
            "response_message_ephemeral": bool(
                message is not None and message["flags"] & EPHEMERAL
            ),
        }
    }
    if message is not None:
        reply["interaction"]["response_message_id"] = message["id"]
        reply["resource"] = {"type": kind, "message": message}
    elif kind != DEFERRED_UPDATE:
        reply["resource"] = {"type": kind}
    return reply
