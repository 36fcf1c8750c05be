"""What the bot did, as the fake Discord recorded it: requests and interaction results."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tests.fake_discord.constants import EPHEMERAL, CallbackType, ComponentType

if TYPE_CHECKING:
    from tests.fake_discord.state import FakeState


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
    #: The files of a multipart upload (`tests.fake_discord.attachments.Upload`).
    uploads: list[Any] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"<{self.method} {self.path} -> {self.status}>"


class InteractionResult:
    """What the bot did with one interaction: the callback, messages, follow-ups."""

    def __init__(self, fake: FakeState, payload: dict[str, Any]) -> None:
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
        return self.callback_type in (
            CallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE,
            CallbackType.DEFERRED_UPDATE_MESSAGE,
        )

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
        """Autocomplete choices (an APPLICATION_COMMAND_AUTOCOMPLETE_RESULT callback)."""
        if self.callback_type != CallbackType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT:
            return []
        return list(((self.callback or {}).get("data") or {}).get("choices") or [])

    def files(self) -> dict[str, bytes]:
        """The files attached to the original response and follow-ups, by file name."""
        messages = [m for m in [self.message, *self.followups] if m]
        return {
            a["filename"]: self._fake.attachment_data[a["id"]]
            for m in messages
            for a in m.get("attachments") or []
        }

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
            if child.get("type") == ComponentType.BUTTON and label in (child.get("label") or ""):
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
