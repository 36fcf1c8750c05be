"""Direct messages: `POST /users/@me/channels` opens (or returns) the DM
channel with a user, and the usual channel message routes work in it.

`fake.close_dms(user)` makes Discord refuse DMs to that user the way it
does when their DMs are closed: `403 {"code": 50007, "message": "Cannot send
messages to this user"}`, on the message send (what Discord does) or, with
`on="open"`, already on opening the channel. `fake.dms_to(user)` lists the
messages the bot sent that user.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from aiohttp import web

from tests.fake_discord.constants import MessageType
from tests.fake_discord.models import FakeUser, new_id
from tests.fake_discord.responses import json_response
from tests.fake_discord.rest import RestMixin

CANNOT_SEND_TO_USER = 50007
DM_CHANNEL_TYPE = 1


class DmsMixin(RestMixin):
    """DM channels on top of the REST routes (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: user id -> DM channel id
        self.dm_channels: dict[int, int] = {}
        #: user id -> where Discord refuses: "send" (Discord's behaviour) or "open"
        self.closed_dms: dict[int, Literal["open", "send"]] = {}

    def close_dms(self, user: FakeUser | int, *, on: Literal["open", "send"] = "send") -> None:
        self.closed_dms[user if isinstance(user, int) else user.id] = on

    def open_dms(self, user: FakeUser | int) -> None:
        self.closed_dms.pop(user if isinstance(user, int) else user.id, None)

    def dms_to(self, user: FakeUser | int) -> list[dict[str, Any]]:
        user_id = user if isinstance(user, int) else user.id
        channel = self.dm_channels.get(user_id)
        ids = self.channel_messages.get(channel, []) if channel is not None else []
        return [self.messages[i] for i in ids if i in self.messages]

    def _dm_user(self, channel_id: str) -> int | None:
        wanted = int(channel_id)
        return next((u for u, c in self.dm_channels.items() if c == wanted), None)

    def _routes(self) -> Iterator[tuple[str, str, Any]]:
        yield r"^/users/@me/channels$", "POST", self._create_dm
        yield from super()._routes()

    async def _create_dm(self, _r: web.Request, body: Any) -> web.Response:
        user_id = int((body or {})["recipient_id"])
        if self.closed_dms.get(user_id) == "open":
            return _cannot_send()
        channel_id = self.dm_channels.setdefault(user_id, new_id())
        recipient = FakeUser(id=user_id, name=f"user{user_id}")
        return json_response(
            {
                "id": str(channel_id),
                "type": DM_CHANNEL_TYPE,
                "last_message_id": None,
                "flags": 0,
                "recipients": [recipient.payload()],
            }
        )

    async def _post_message(self, request: web.Request, body: Any, channel_id: str) -> web.Response:
        user_id = self._dm_user(channel_id)
        if user_id is None:
            return await super()._post_message(request, body, channel_id)
        if user_id in self.closed_dms:
            return _cannot_send()
        message = self._base_message(
            int(channel_id), dict(body or {}), flags=0, message_type=MessageType.DEFAULT
        )
        self.messages[int(message["id"])] = message
        self.channel_messages.setdefault(int(channel_id), []).append(int(message["id"]))
        return json_response(message)

    async def _get_messages(self, request: web.Request, body: Any, channel_id: str) -> web.Response:
        if self._dm_user(channel_id) is None:
            return await super()._get_messages(request, body, channel_id)
        limit = int(request.query.get("limit", "50"))
        ids = self.channel_messages.get(int(channel_id), [])
        newest_first = [self.messages[i] for i in reversed(ids) if i in self.messages]
        return json_response(newest_first[:limit])


def _cannot_send() -> web.Response:
    return json_response(
        {"message": "Cannot send messages to this user", "code": CANNOT_SEND_TO_USER}, 403
    )
