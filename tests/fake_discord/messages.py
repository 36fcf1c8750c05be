"""Messages the bot creates or edits, stored as Discord returns them."""

from __future__ import annotations

from typing import Any

from tests.fake_discord.constants import EPHEMERAL, LOADING, MessageType
from tests.fake_discord.models import new_id, timestamp
from tests.fake_discord.results import InteractionResult
from tests.fake_discord.state import FakeState


class MessagesMixin(FakeState):
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
            "attachments": [a for a in data.get("attachments") or [] if "url" in a],
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
        message = self._base_message(
            int(payload["channel_id"]),
            data,
            flags=flags,
            message_type=MessageType.CHAT_INPUT_COMMAND,
        )
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


def apply_edit(message: dict[str, Any], data: dict[str, Any]) -> None:
    if "content" in data:
        message["content"] = data["content"] or ""
    if "embeds" in data:
        message["embeds"] = [{"type": "rich", **e} for e in data["embeds"] or []]
    if "components" in data:
        message["components"] = data["components"] or []
    if "attachments" in data:
        # Entries with a URL were just uploaded; bare ids keep existing files.
        kept = {a["id"]: a for a in message["attachments"]}
        message["attachments"] = [
            a if "url" in a else kept[str(a["id"])]
            for a in data["attachments"] or []
            if "url" in a or str(a.get("id")) in kept
        ]
    if "flags" in data and data["flags"] is not None:
        message["flags"] = (message["flags"] & (EPHEMERAL | LOADING)) | data["flags"]
    message["edited_timestamp"] = timestamp()
