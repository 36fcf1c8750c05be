"""Shared by the personal digest tests: a fake Discord that also opens DM
channels, refuses DMs to chosen readers (error 50007) and can outlive a
SIGKILL (journaled like `tests.support.digest.FakeDiscord`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from paperbot.core.render import MessageData
from paperbot.services.personal_digest import DmsClosed
from tests.support.digest import FakeDiscord
from tests.support.process import sigkill_self

DM_CHANNEL_BASE = 5_000_000_000


def dm_channel(user_id: int) -> int:
    """The DM channel the fake opens for a reader (the same after a restart)."""
    return DM_CHANNEL_BASE + user_id


@dataclass
class FakeDms(FakeDiscord):
    """`FakeDiscord` plus `POST /users/@me/channels`."""

    # Readers whose DMs are closed: opening the DM fails with 50007.
    closed: set[int] = field(default_factory=set)
    # Readers whose DM opens but every send into it fails with 50007.
    closed_on_send: set[int] = field(default_factory=set)
    opened: list[int] = field(default_factory=list)

    async def open_dm(self, user_id: int) -> int:
        if self.sigkill_at == "in-open":
            sigkill_self()
        self.opened.append(user_id)
        if user_id in self.closed:
            raise DmsClosed("Cannot send messages to this user (50007)")
        return dm_channel(user_id)

    async def send(self, channel_id: int, message: MessageData, nonce: str) -> int:
        if channel_id - DM_CHANNEL_BASE in self.closed_on_send:
            self.sends += 1
            raise DmsClosed("Cannot send messages to this user (50007)")
        return await super().send(channel_id, message, nonce)

    def dms_to(self, user_id: int) -> list[MessageData]:
        return [m.message for m in self.in_channel(dm_channel(user_id))]
