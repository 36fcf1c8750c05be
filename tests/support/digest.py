"""Shared by the digest tests: a schema check, and a fake transport that
behaves like Discord about nonces and history."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

from paperbot.core.render import EmbedData, EmbedField, MessageData
from paperbot.services.digest import ChannelMessage, DeliveryError
from paperbot.storage.db import Database
from paperbot.storage.messages import decode_message, encode_message
from tests.support.process import sigkill_self

#: The local day and the message of the digest posts the store tests claim.
DAY = date(2026, 11, 30)
MESSAGE = MessageData(
    content="📚 header\nPicked for your topics: <@5>",
    embeds=(EmbedData("T", "d", "https://x", (EmbedField("Venue", "ICML 2025", True),), "f", 1),),
    mention_user_ids=(5,),
)


async def ensure_digest_schema(db: Database) -> None:
    """The digest tables come from migration 0004: fail loudly if they did not."""
    # Both backends: a table that is missing makes the count fail loudly.
    row = await db.fetch_one(
        "SELECT (SELECT count(*) FROM digest_settings) + (SELECT count(*) FROM digest_posts)"
        " + (SELECT count(*) FROM digest_posted) >= 0, 3"
    )
    assert row is not None, "migration 0004 (digest) did not run"
    assert row[1] == 3, "migration 0004 (digest) did not run"


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
    # A real SIGKILL at this step of a send: "before-request", or "after-send"
    # (the message exists and is journaled, the confirm never happens).
    sigkill_at: str | None = None
    sends: int = 0
    # When set, messages persist in this JSON file (a Discord that outlives a SIGKILL).
    journal: Path | None = None
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1000))

    def __post_init__(self) -> None:
        if self.journal is not None and self.journal.exists():
            for row in json.loads(self.journal.read_text(encoding="utf-8")):
                self.messages.append(
                    Sent(
                        row["id"],
                        row["channel_id"],
                        decode_message(row["message"]),
                        row["nonce"],
                        datetime.fromisoformat(row["created_at"]),
                    )
                )
            self._ids = itertools.count(1000 + len(self.messages))

    def _save(self) -> None:
        if self.journal is None:
            return
        rows = [
            {
                "id": m.id,
                "channel_id": m.channel_id,
                "message": encode_message(m.message),
                "nonce": m.nonce,
                "created_at": m.created_at.isoformat(),
            }
            for m in self.messages
        ]
        with self.journal.open("w", encoding="utf-8") as fh:
            json.dump(rows, fh)
            fh.flush()
            os.fsync(fh.fileno())

    def in_channel(self, channel_id: int) -> list[Sent]:
        return [m for m in self.messages if m.channel_id == channel_id]

    async def send(self, channel_id: int, message: MessageData, nonce: str) -> int:
        if self.sigkill_at == "before-request":
            sigkill_self()
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
        self._save()
        if self.sigkill_at == "after-send":
            sigkill_self()
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
