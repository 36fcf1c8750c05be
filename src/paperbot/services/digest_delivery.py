"""Delivering a claimed digest post exactly once, and resolving the posts a
crash left open (see services/digest.py for the three-step protocol).

`DigestDelivery` is the delivery half of `DigestService`: it needs the
database, the shards this process owns and the posts in flight, which the
service sets up.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Literal, Protocol

from paperbot.core.models import DigestPost
from paperbot.core.render import MessageData
from paperbot.core.shards import ShardSet
from paperbot.storage import digests as store
from paperbot.storage.backend import Database

log = logging.getLogger(__name__)

# Discord checks `enforce_nonce` uniqueness "in the past few minutes"; stay
# well inside that before trusting a re-send to be deduplicated.
NONCE_WINDOW = timedelta(minutes=2)
# Messages read back when looking for a post whose outcome is unknown.
HISTORY_LIMIT = 100
# Tries for a post whose sends keep failing for transient reasons.
MAX_ATTEMPTS = 3


class DeliveryError(Exception):
    """A send (or history read) failed.

    `permanent` means retrying cannot help (the channel is gone, the bot lost
    access): the failure is recorded for the admins and the post is closed.
    """

    def __init__(self, message: str, *, permanent: bool) -> None:
        super().__init__(message)
        self.permanent = permanent


@dataclass(frozen=True, slots=True)
class ChannelMessage:
    """A message read back from channel history."""

    id: int
    created_at: datetime
    by_me: bool
    content: str


class DigestTransport(Protocol):
    """How the service reaches Discord (implemented in `bot/`)."""

    async def send(self, channel_id: int, message: MessageData, nonce: str) -> int:
        """Post the message with this nonce (and enforce_nonce); the message id."""

    async def history(
        self, channel_id: int, after: datetime, limit: int
    ) -> Sequence[ChannelMessage]:
        """Messages created after `after`, oldest first, at most `limit`."""


Outcome = Literal[
    "posted", "already-posted", "not-due", "not-configured", "failed", "pending", "expired"
]


@dataclass(frozen=True, slots=True)
class PostResult:
    outcome: Outcome
    guild_id: int
    local_date: date | None = None
    message_id: int | None = None
    detail: str = ""
    papers: int = 0


def find_post(recent: Sequence[ChannelMessage], header: str) -> ChannelMessage | None:
    """The bot's own message whose first line is a post's header, if any: a
    post (or DM) that went out although its confirmation was lost."""
    return next((m for m in recent if m.by_me and m.content.split("\n", 1)[0] == header), None)


class DigestDelivery:
    """Send, confirm and resolve digest posts (the service's delivery half)."""

    db: Database
    shards: ShardSet
    # Posts being delivered by this process: `resolve` leaves them alone.
    _in_flight: set[int]

    async def _deliver(
        self, post: DigestPost, transport: DigestTransport, now: datetime
    ) -> PostResult:
        self._in_flight.add(post.id)
        try:
            return await self._send_and_confirm(post, transport, now)
        finally:
            self._in_flight.discard(post.id)

    async def _send_and_confirm(
        self, post: DigestPost, transport: DigestTransport, now: datetime
    ) -> PostResult:
        await store.mark_sent(self.db, post.id, now)
        try:
            message_id = await transport.send(post.channel_id, post.message, post.nonce)
        except DeliveryError as exc:
            return await self._failed(post, exc, now)
        await store.confirm(self.db, post.id, message_id)
        log.info(
            "digest posted: guild %d channel %d date %s message %d",
            post.guild_id,
            post.channel_id,
            post.local_date,
            message_id,
        )
        return PostResult(
            "posted", post.guild_id, post.local_date, message_id, papers=len(post.paper_ids)
        )

    async def _failed(self, post: DigestPost, exc: DeliveryError, now: datetime) -> PostResult:
        if exc.permanent:
            log.warning("digest for guild %d failed for good: %s", post.guild_id, exc)
            await store.close_post(self.db, post.id, "failed", str(exc))
            await store.record_failure(
                self.db,
                post.guild_id,
                f"The digest of {post.local_date} was not posted: {exc}",
                now,
            )
            return PostResult("failed", post.guild_id, post.local_date, detail=str(exc))
        # The request may or may not have reached Discord: keep it open for
        # `resolve`, which retries a bounded number of times.
        log.warning("digest for guild %d: send failed, will resolve later: %s", post.guild_id, exc)
        await store.note_error(self.db, post.id, str(exc))
        return PostResult("pending", post.guild_id, post.local_date, detail=str(exc))

    # --- after a crash ------------------------------------------------------

    async def recover(self, transport: DigestTransport, now: datetime) -> list[PostResult]:
        """Resolve every post a crash (or an unknown send outcome) left open."""
        open_posts = await store.open_posts(self.db)
        return [
            await self.resolve(post, transport, now)
            for post in open_posts
            if self.shards.owns(post.guild_id)
        ]

    async def resolve(
        self, post: DigestPost, transport: DigestTransport, now: datetime
    ) -> PostResult:
        """Finish a post whose delivery is unknown, without ever posting twice."""
        if post.id in self._in_flight:
            return PostResult("pending", post.guild_id, post.local_date, detail="in flight")
        current = await store.get_post(self.db, post.id)
        if current is None or current.state not in ("claimed", "sent"):
            return PostResult("already-posted", post.guild_id, post.local_date)
        post = current
        still_today = self._day_is_on(post, now)
        if post.state == "claimed":
            # Nothing was sent: a claim whose day is on is simply delivered.
            if still_today and post.kind == "scheduled":
                return await self._deliver(post, transport, now)
            await store.close_post(self.db, post.id, "expired", "not sent before its day ended")
            return PostResult("expired", post.guild_id, post.local_date)
        return await self._resolve_sent(post, transport, now, still_today=still_today)

    async def _resolve_sent(
        self, post: DigestPost, transport: DigestTransport, now: datetime, *, still_today: bool
    ) -> PostResult:
        """Finish a post that may be out: found in history it is confirmed,
        otherwise it is re-sent only when that cannot double post."""
        assert post.sent_at is not None
        if now - post.sent_at <= NONCE_WINDOW:
            # Discord still deduplicates this nonce: a re-send cannot double post.
            return await self._deliver(post, transport, now)
        try:
            recent = await transport.history(
                post.channel_id, post.claimed_at - timedelta(seconds=5), HISTORY_LIMIT
            )
        except DeliveryError as exc:
            return await self._unconfirmed(post, exc, now, still_today=still_today)
        mine = find_post(recent, post.header)
        if mine is not None:
            await store.confirm(self.db, post.id, mine.id)
            log.info("digest for guild %d found in history: message %d", post.guild_id, mine.id)
            return PostResult(
                "posted", post.guild_id, post.local_date, mine.id, papers=len(post.paper_ids)
            )
        if len(recent) >= HISTORY_LIMIT:
            # The history since the claim is longer than we read: the post may
            # be in it. Never risk a second post; keep its papers as seen.
            await store.close_post(
                self.db, post.id, "expired", "outcome unknown (busy channel)", free_papers=False
            )
            return PostResult("expired", post.guild_id, post.local_date)
        if still_today and post.kind == "scheduled" and post.attempts < MAX_ATTEMPTS:
            return await self._deliver(post, transport, now)
        reason = (
            "not delivered before its day ended"
            if post.kind == "scheduled"
            else "extra post not delivered (not re-sent after a restart)"
        )
        if post.attempts >= MAX_ATTEMPTS:
            reason = (
                f"not delivered after {post.attempts} attempts: {post.error or 'unknown error'}"
            )
            await store.record_failure(
                self.db, post.guild_id, f"The digest of {post.local_date} was {reason}", now
            )
        await store.close_post(self.db, post.id, "failed", reason)
        return PostResult("failed", post.guild_id, post.local_date, detail=reason)

    async def _unconfirmed(
        self, post: DigestPost, exc: DeliveryError, now: datetime, *, still_today: bool
    ) -> PostResult:
        """History could not be read: the post may be out, so its papers stay
        seen and it is not sent again; a transient error is retried while the
        day lasts."""
        if not exc.permanent and still_today:
            await store.note_error(self.db, post.id, str(exc))
            return PostResult("pending", post.guild_id, post.local_date, detail=str(exc))
        log.warning("digest for guild %d: could not confirm the post: %s", post.guild_id, exc)
        await store.close_post(
            self.db, post.id, "failed", f"outcome unknown: {exc}", free_papers=False
        )
        if exc.permanent:
            await store.record_failure(
                self.db,
                post.guild_id,
                f"The digest of {post.local_date} may not have been posted: {exc}",
                now,
            )
        return PostResult("failed", post.guild_id, post.local_date, detail=str(exc))

    @staticmethod
    def _day_is_on(post: DigestPost, now: datetime) -> bool:
        return now < post.deadline
