"""Shared by the digest tests: a schema check, and a fake transport that
behaves like Discord about nonces and history."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from paperbot.core.render import MessageData
from paperbot.services.digest import ChannelMessage, DeliveryError
from paperbot.storage.db import Database


async def ensure_digest_schema(db: Database) -> None:
    """The digest tables come from migration 0004: fail loudly if they did not."""
    async with db.conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
        " AND name IN ('digest_settings', 'digest_posts', 'digest_posted')"
    ) as cur:
        row = await cur.fetchone()
    assert row is not None and row[0] == 3, "migration 0004 (digest) did not run"


class Crash(BaseException):
    """A SIGKILL stand-in: nothing after it runs, nothing catches it."""


@dataclass
class Sent:
    id: int
    channel_id: int
    message: MessageData
    nonce: str
    created_at: datetime


@dataclass
class FakeDiscord:
    """Channels that remember messages; `enforce_nonce` deduplicates for a window."""

    now: datetime
    nonce_window: timedelta = timedelta(minutes=5)
    messages: list[Sent] = field(default_factory=list)
    gone: set[int] = field(default_factory=set)
    forbidden: set[int] = field(default_factory=set)
    flaky: int = 0  # the next N sends fail with a 503
    crash_after_send: bool = False  # the message is created, then the bot dies
    sends: int = 0
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1000))

    def in_channel(self, channel_id: int) -> list[Sent]:
        return [m for m in self.messages if m.channel_id == channel_id]

    async def send(self, channel_id: int, message: MessageData, nonce: str) -> int:
        self.sends += 1
        self._check(channel_id)
        if self.flaky:
            self.flaky -= 1
            raise DeliveryError("Discord answered 503", permanent=False)
        for old in self.messages:
            if old.nonce == nonce and self.now - old.created_at <= self.nonce_window:
                return old.id  # Discord returns the first message, creates nothing
        sent = Sent(next(self._ids), channel_id, message, nonce, self.now)
        self.messages.append(sent)
        if self.crash_after_send:
            self.crash_after_send = False
            raise Crash
        return sent.id

    async def history(
        self, channel_id: int, after: datetime, limit: int
    ) -> Sequence[ChannelMessage]:
        self._check(channel_id)
        found = [m for m in self.in_channel(channel_id) if m.created_at > after][:limit]
        return [ChannelMessage(m.id, m.created_at, True, m.message.content) for m in found]

    def _check(self, channel_id: int) -> None:
        if channel_id in self.gone:
            raise DeliveryError("the channel no longer exists", permanent=True)
        if channel_id in self.forbidden:
            raise DeliveryError("the bot may no longer post in the channel", permanent=True)
