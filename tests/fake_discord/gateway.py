"""The fake Discord's gateway websocket: hello, heartbeats, identify -> READY, dispatches."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import WSMsgType, web

from tests.fake_discord.constants import GatewayClose, GatewayOp
from tests.fake_discord.models import FakeGuild, new_id
from tests.fake_discord.state import FakeState


class GatewayMixin(FakeState):
    """Serves `/gateway` and sends events to every connected client."""

    async def join_guild(self, guild: FakeGuild) -> None:
        """The bot is added to a guild while running (GUILD_CREATE)."""
        self.guilds[guild.id] = guild
        await self.dispatch("GUILD_CREATE", guild.payload(self.bot))

    def _receives(self, ws: web.WebSocketResponse, guild_id: int | None) -> bool:
        """Like Discord: a guild's events go to its shard, `(id >> 22) % count`;
        direct messages to shard 0."""
        shard, count = self._socket_shards.get(id(ws), (0, 1))
        return (0 if guild_id is None else (guild_id >> 22) % count) == shard

    async def remove_guild(self, guild: FakeGuild) -> None:
        """The bot is removed from (kicked out of) a guild (GUILD_DELETE without
        `unavailable`, which would mean an outage instead)."""
        self.guilds.pop(guild.id, None)
        await self.dispatch("GUILD_DELETE", {"id": str(guild.id)})

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        guild = (
            data.get("id") if event in ("GUILD_CREATE", "GUILD_DELETE") else data.get("guild_id")
        )
        guild_id = int(guild) if guild is not None else None
        for ws in list(self._sockets):
            if not self._receives(ws, guild_id):
                continue
            self._sequence += 1
            await ws.send_str(
                json.dumps({"op": GatewayOp.DISPATCH, "t": event, "s": self._sequence, "d": data})
            )

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._sockets.append(ws)
        await ws.send_str(json.dumps({"op": GatewayOp.HELLO, "d": {"heartbeat_interval": 41250}}))
        try:
            async for frame in ws:
                if frame.type != WSMsgType.TEXT:
                    continue
                await self._on_gateway_message(ws, json.loads(frame.data))
        finally:
            self._sockets.remove(ws)
            self._socket_shards.pop(id(ws), None)
        return ws

    async def _on_gateway_message(self, ws: web.WebSocketResponse, message: dict[str, Any]) -> None:
        op = message.get("op")
        if op == GatewayOp.HEARTBEAT:
            await ws.send_str(json.dumps({"op": GatewayOp.HEARTBEAT_ACK}))
        elif op == GatewayOp.IDENTIFY:
            identify = message["d"]
            self.identifies.append(identify)
            if identify.get("token") != self.token:
                await ws.close(
                    code=GatewayClose.AUTHENTICATION_FAILED, message=b"Authentication failed."
                )
                return
            shard, count = identify.get("shard") or (0, 1)
            self._socket_shards[id(ws)] = (int(shard), int(count))
            await self._send_ready(ws)
        elif op == GatewayOp.RESUME:
            self._sequence += 1
            await ws.send_str(
                json.dumps({"op": GatewayOp.DISPATCH, "t": "RESUMED", "s": self._sequence, "d": {}})
            )

    async def _send_ready(self, ws: web.WebSocketResponse) -> None:
        shard = self._socket_shards.get(id(ws), (0, 1))
        guilds = [g for g in self.guilds.values() if self._receives(ws, g.id)]
        ready = {
            "v": 10,
            "user": {**self.bot.payload(), "verified": True, "mfa_enabled": False},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": f"session-{new_id()}",
            "resume_gateway_url": self.gateway_url,
            "shard": list(shard),
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
        await ws.send_str(
            json.dumps({"op": GatewayOp.DISPATCH, "t": "READY", "s": self._sequence, "d": ready})
        )
        for guild in guilds:
            self._sequence += 1
            frame = {
                "op": GatewayOp.DISPATCH,
                "t": "GUILD_CREATE",
                "s": self._sequence,
                "d": guild.payload(self.bot),
            }
            await ws.send_str(json.dumps(frame))
