"""REST routes outside interactions: the bot user, application, commands, channels, guilds."""

from __future__ import annotations

import contextlib
from typing import Any

from aiohttp import web

from tests.fake_discord.constants import CommandType, ErrorCode, MessageType
from tests.fake_discord.messages import MessagesMixin, apply_edit
from tests.fake_discord.models import FakeChannel, FakeUser, new_id
from tests.fake_discord.responses import json_response


class ResourceRoutes(MessagesMixin):
    """/users, /oauth2, /applications/.../commands, /channels and /guilds."""

    async def _get_me(self, _request: web.Request, _body: Any) -> web.Response:
        return json_response({**self.bot.payload(), "verified": True, "mfa_enabled": False})

    async def _get_application(self, _request: web.Request, _body: Any) -> web.Response:
        owner = FakeUser(name="owner")
        return json_response(
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
            entry.setdefault("type", CommandType.CHAT_INPUT)
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
        return json_response(self._store_commands(None, body or []))

    async def _get_global_commands(self, _r: web.Request, _body: Any, _app: str) -> web.Response:
        return json_response(self.global_commands)

    async def _put_guild_commands(
        self, _r: web.Request, body: Any, _app: str, guild_id: str
    ) -> web.Response:
        return json_response(self._store_commands(int(guild_id), body or []))

    async def _get_guild_commands(
        self, _r: web.Request, _body: Any, _app: str, guild_id: str
    ) -> web.Response:
        return json_response(self.guild_commands.get(int(guild_id), []))

    def _channel(self, channel_id: str) -> FakeChannel | None:
        for guild in self.guilds.values():
            for channel in guild.channels:
                if channel.id == int(channel_id):
                    return channel
        return None

    async def _get_channel(self, _r: web.Request, _body: Any, channel_id: str) -> web.Response:
        channel = self._channel(channel_id)
        if channel is None:
            return json_response(
                {"message": "Unknown Channel", "code": ErrorCode.UNKNOWN_CHANNEL}, 404
            )
        return json_response(channel.payload())

    async def _post_message(self, _r: web.Request, body: Any, channel_id: str) -> web.Response:
        channel = self._channel(channel_id)
        if channel is None:
            return json_response(
                {"message": "Unknown Channel", "code": ErrorCode.UNKNOWN_CHANNEL}, 404
            )
        perms = channel.bot_permissions
        if not (perms.view_channel and perms.send_messages):
            return json_response(
                {"message": "Missing Permissions", "code": ErrorCode.MISSING_PERMISSIONS}, 403
            )
        data = dict(body or {})
        if data.get("embeds") and not perms.embed_links:
            data["embeds"] = []  # Discord silently drops embeds without Embed Links.
        message = self._base_message(channel.id, data, flags=0, message_type=MessageType.DEFAULT)
        message["guild_id"] = str(channel.guild_id)
        self.messages[int(message["id"])] = message
        self.channel_messages.setdefault(channel.id, []).append(int(message["id"]))
        return json_response(message)

    async def _get_messages(
        self, request: web.Request, _body: Any, channel_id: str
    ) -> web.Response:
        channel = self._channel(channel_id)
        if channel is None:
            return json_response(
                {"message": "Unknown Channel", "code": ErrorCode.UNKNOWN_CHANNEL}, 404
            )
        if not channel.bot_permissions.read_message_history:
            return json_response([])
        limit = int(request.query.get("limit", "50"))
        ids = self.channel_messages.get(channel.id, [])
        newest_first = [self.messages[i] for i in reversed(ids) if i in self.messages]
        return json_response(newest_first[:limit])

    async def _get_message(
        self, _r: web.Request, _body: Any, channel_id: str, message_id: str
    ) -> web.Response:
        message = self.messages.get(int(message_id))
        if message is None or message["channel_id"] != channel_id:
            return json_response(
                {"message": "Unknown Message", "code": ErrorCode.UNKNOWN_MESSAGE}, 404
            )
        return json_response(message)

    async def _edit_message(
        self, _r: web.Request, body: Any, channel_id: str, message_id: str
    ) -> web.Response:
        message = self.messages.get(int(message_id))
        if message is None or message["channel_id"] != channel_id:
            return json_response(
                {"message": "Unknown Message", "code": ErrorCode.UNKNOWN_MESSAGE}, 404
            )
        apply_edit(message, body or {})
        return json_response(message)

    async def _delete_message(
        self, _r: web.Request, _body: Any, channel_id: str, message_id: str
    ) -> web.Response:
        message = self.messages.pop(int(message_id), None)
        if message is None:
            return json_response(
                {"message": "Unknown Message", "code": ErrorCode.UNKNOWN_MESSAGE}, 404
            )
        with contextlib.suppress(ValueError):
            self.channel_messages.get(int(channel_id), []).remove(int(message_id))
        return web.Response(status=204)

    async def _get_guild(self, _r: web.Request, _body: Any, guild_id: str) -> web.Response:
        guild = self.guilds.get(int(guild_id))
        if guild is None:
            return json_response({"message": "Unknown Guild", "code": ErrorCode.UNKNOWN_GUILD}, 404)
        return json_response(guild.payload(self.bot))

    async def _get_guild_channels(self, _r: web.Request, _body: Any, guild_id: str) -> web.Response:
        guild = self.guilds.get(int(guild_id))
        if guild is None:
            return json_response({"message": "Unknown Guild", "code": ErrorCode.UNKNOWN_GUILD}, 404)
        return json_response([c.payload() for c in guild.channels])
