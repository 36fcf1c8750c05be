"""Delivering a claimed digest post exactly once, and resolving the posts a
crash left open (see services/digest.py for the three-step protocol).

`PostDelivery` is that state machine for any kind of post: the server
digest's `DigestDelivery` (the delivery half of `DigestService`, which sets
up the database, the shards this process owns and the posts in flight) and
the personal DM (`PersonalDigestService`) each add only what differs.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Generic, Literal, Protocol, TypeVar

from paperbot.core.models import DigestPost
from paperbot.core.personal import PersonalPost
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


# What the state machine itself reports; each kind of post adds its own.
DeliveryOutcome = Literal["posted", "already-posted", "failed", "pending", "expired"]


# The kinds of post: both carry the fields the state machine reads.
P = TypeVar("P", bound=DigestPost | PersonalPost)
P_co = TypeVar("P_co", bound=DigestPost | PersonalPost, covariant=True)
R = TypeVar("R")
T = TypeVar("T", bound=DigestTransport)


class PostStore(Protocol[P_co]):
    """How a kind of post is recorded: its storage module (`storage.digests`,
    `storage.personal`), read at each call so a test can replace a step."""

    async def get_post(self, db: Database, post_id: int) -> P_co | None: ...
    async def open_posts(self, db: Database) -> Sequence[P_co]: ...
    async def mark_sent(self, db: Database, post_id: int, now: datetime) -> None: ...
    async def confirm(self, db: Database, post_id: int, message_id: int) -> None: ...
    async def close_post(
        self,
        db: Database,
        post_id: int,
        state: Literal["failed", "expired"],
        error: str,
        *,
        free_papers: bool = True,
    ) -> None: ...
    async def note_error(self, db: Database, post_id: int, error: str) -> None: ...


class PostDelivery(ABC, Generic[P, R, T]):
    """The exactly-once state machine every kind of digest post goes
    through (server posts, personal DMs): mark sent, send with the post's
    nonce, confirm; failures closed or kept open; `resolve` finishes what a
    crash left open without ever sending twice.

    A kind of post brings only what differs: `posts` (how it is recorded:
    its storage module), where it is sent (`_channel`), how it is named
    and reported (`_result`, `_label`, `_report`, `_refused`), which posts
    may be re-sent after a restart (`_redelivers`) and which this process
    owns (`_owns`).
    """

    db: Database
    posts: PostStore[P]
    # Stored as the error of a sent post whose history was too long to read.
    busy_history: str = "outcome unknown (busy channel)"
    # Posts being delivered by this process: `resolve` leaves them alone.
    _in_flight: set[int]

    # --- what differs between kinds of post --------------------------------

    @abstractmethod
    def _result(
        self,
        outcome: DeliveryOutcome,
        post: P,
        message_id: int | None = None,
        *,
        detail: str = "",
        papers: int = 0,
    ) -> R:
        """The outcome as this kind of post reports it."""

    @abstractmethod
    def _label(self, post: P) -> str:
        """Who the post is for, in the logs ("digest for guild 7")."""

    async def _channel(self, post: P, transport: T) -> int:  # noqa: ARG002 (a hook's signature)
        """Where the post goes; may raise `DeliveryError` (nothing was sent)."""
        assert post.channel_id is not None
        return post.channel_id

    def _redelivers(self, post: P) -> bool:  # noqa: ARG002 (a hook's signature)
        """Whether a post left open by a crash may still be sent in its day."""
        return True

    def _owns(self, post: P) -> bool:  # noqa: ARG002 (a hook's signature)
        """Whether this process resolves the post (the shard's owner does)."""
        return True

    async def _report(self, post: P, what: str, now: datetime) -> None:
        """Tell whoever should know that the post `what` ("was not posted: ...")."""

    async def _refused(self, post: P, exc: DeliveryError, now: datetime) -> R | None:
        """A permanent send failure this kind handles itself (the post is
        already closed), or None (the default) for the common handling."""

    # --- delivery -----------------------------------------------------------

    async def _deliver(self, post: P, transport: T, now: datetime) -> R:
        self._in_flight.add(post.id)
        try:
            return await self._send_and_confirm(post, transport, now)
        finally:
            self._in_flight.discard(post.id)

    async def _send_and_confirm(self, post: P, transport: T, now: datetime) -> R:
        try:
            channel_id = await self._channel(post, transport)
            await self.posts.mark_sent(self.db, post.id, now)
            message_id = await transport.send(channel_id, post.message, post.nonce)
        except DeliveryError as exc:
            return await self._failed(post, exc, now)
        await self.posts.confirm(self.db, post.id, message_id)
        log.info(
            "%s posted in channel %d on %s: message %d",
            self._label(post),
            channel_id,
            post.local_date,
            message_id,
        )
        return self._result("posted", post, message_id, papers=len(post.paper_ids))

    async def _failed(self, post: P, exc: DeliveryError, now: datetime) -> R:
        if not exc.permanent:
            # The request may or may not have reached Discord: keep it open
            # for `resolve`, which retries a bounded number of times.
            log.warning("%s: send failed, will resolve later: %s", self._label(post), exc)
            await self.posts.note_error(self.db, post.id, str(exc))
            return self._result("pending", post, detail=str(exc))
        await self.posts.close_post(self.db, post.id, "failed", str(exc))
        refused = await self._refused(post, exc, now)
        if refused is not None:
            return refused
        log.warning("%s failed for good: %s", self._label(post), exc)
        await self._report(post, f"was not posted: {exc}", now)
        return self._result("failed", post, detail=str(exc))

    # --- after a crash ------------------------------------------------------

    async def recover(self, transport: T, now: datetime) -> list[R]:
        """Resolve every post a crash (or an unknown send outcome) left open."""
        open_posts = await self.posts.open_posts(self.db)
        return [await self.resolve(post, transport, now) for post in open_posts if self._owns(post)]

    async def resolve(self, post: P, transport: T, now: datetime) -> R:
        """Finish a post whose delivery is unknown, without ever posting twice."""
        if post.id in self._in_flight:
            return self._result("pending", post, detail="in flight")
        current = await self.posts.get_post(self.db, post.id)
        if current is None or current.state not in ("claimed", "sent"):
            return self._result("already-posted", post)
        still_today = now < current.deadline
        if current.state == "claimed":
            # Nothing was sent: a claim whose day is on is simply delivered.
            if still_today and self._redelivers(current):
                return await self._deliver(current, transport, now)
            await self.posts.close_post(
                self.db, current.id, "expired", "not sent before its day ended"
            )
            return self._result("expired", current)
        return await self._resolve_sent(current, transport, now, still_today=still_today)

    async def _resolve_sent(self, post: P, transport: T, now: datetime, *, still_today: bool) -> R:
        """Finish a post that may be out: found in history it is confirmed,
        otherwise it is re-sent only when that cannot double post."""
        assert post.sent_at is not None
        assert post.channel_id is not None
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
            await self.posts.confirm(self.db, post.id, mine.id)
            log.info("%s found in history: message %d", self._label(post), mine.id)
            return self._result("posted", post, mine.id, papers=len(post.paper_ids))
        if len(recent) >= HISTORY_LIMIT:
            # The history since the claim is longer than we read: the post may
            # be in it. Never risk a second post; keep its papers as seen.
            await self.posts.close_post(
                self.db, post.id, "expired", self.busy_history, free_papers=False
            )
            return self._result("expired", post)
        if still_today and self._redelivers(post) and post.attempts < MAX_ATTEMPTS:
            return await self._deliver(post, transport, now)
        return await self._give_up(post, now)

    async def _give_up(self, post: P, now: datetime) -> R:
        """A sent post that is not out and will not be sent again."""
        reason = (
            "not delivered before its day ended"
            if self._redelivers(post)
            else "extra post not delivered (not re-sent after a restart)"
        )
        if post.attempts >= MAX_ATTEMPTS:
            reason = (
                f"not delivered after {post.attempts} attempts: {post.error or 'unknown error'}"
            )
            await self._report(post, f"was {reason}", now)
        await self.posts.close_post(self.db, post.id, "failed", reason)
        return self._result("failed", post, detail=reason)

    async def _unconfirmed(
        self, post: P, exc: DeliveryError, now: datetime, *, still_today: bool
    ) -> R:
        """History could not be read: the post may be out, so its papers stay
        seen and it is not sent again; a transient error is retried while the
        day lasts."""
        if not exc.permanent and still_today:
            await self.posts.note_error(self.db, post.id, str(exc))
            return self._result("pending", post, detail=str(exc))
        log.warning("%s: could not confirm the post: %s", self._label(post), exc)
        await self.posts.close_post(
            self.db, post.id, "failed", f"outcome unknown: {exc}", free_papers=False
        )
        if exc.permanent:
            await self._report(post, f"may not have been posted: {exc}", now)
        return self._result("failed", post, detail=str(exc))


class DigestDelivery(PostDelivery[DigestPost, PostResult, DigestTransport]):
    """The server digest's delivery (`DigestService`'s half): posts into the
    configured channel, failures recorded for the server's admins, extra
    posts never re-sent after a restart, only the servers of this process's
    shards resolved."""

    posts: PostStore[DigestPost] = store
    shards: ShardSet

    def _result(
        self,
        outcome: DeliveryOutcome,
        post: DigestPost,
        message_id: int | None = None,
        *,
        detail: str = "",
        papers: int = 0,
    ) -> PostResult:
        return PostResult(outcome, post.guild_id, post.local_date, message_id, detail, papers)

    def _label(self, post: DigestPost) -> str:
        return f"digest for guild {post.guild_id}"

    def _redelivers(self, post: DigestPost) -> bool:
        return post.kind == "scheduled"

    def _owns(self, post: DigestPost) -> bool:
        return self.shards.owns(post.guild_id)

    async def _report(self, post: DigestPost, what: str, now: datetime) -> None:
        await store.record_failure(
            self.db, post.guild_id, f"The digest of {post.local_date} {what}", now
        )
