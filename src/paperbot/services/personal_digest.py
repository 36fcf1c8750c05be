"""The personal daily digest by DM: `/digest me`, the daily DM, and
resolving DMs a crash left open.

One DM per reader and reader-local date, whatever the number of servers
they share with the bot: the setting is per user, and their topics are the
union of what they follow in every server (`SubscriptionService.user_demands`:
a topic followed in two servers, or under two names, counts once). The picks
come from the server digest's own picker (`DigestService.plan` with the
reader as the audience), which leaves out every paper the reader already
got: by DM, or in a server digest of a server where they follow topics or
that pinged them.

Exactly once, as for the server digest (`services.digest`):

1. claim: the (user, local date) row with the rendered DM and the papers
   marked as received, in one transaction;
2. open the DM channel (`POST /users/@me/channels`) and store its id, mark
   sent, then send with the DM's deterministic nonce (`enforce_nonce`);
3. confirm with the message id.

A crash after 1 or during 2 before the request leaves `claimed`: sent if
the reader's day is still on. After that it is `sent`: re-sent with the
same nonce inside Discord's dedup window, later looked up in the DM
channel's history and re-sent only when it is not there.

A reader whose DMs are closed to the bot (Discord error 50007, on opening
the DM or on sending) gets the personal digest switched off, with a notice
the bot shows them at their next command; nothing retries it.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Literal, Protocol
from zoneinfo import ZoneInfo

from paperbot.config import Settings
from paperbot.core import schedule
from paperbot.core.personal import PersonalPost, PersonalSettings, personal_nonce, render_personal
from paperbot.core.schedule import DailyTime
from paperbot.services.digest import (
    HISTORY_LIMIT,
    MAX_ATTEMPTS,
    NONCE_WINDOW,
    DeliveryError,
    DigestService,
    DigestTransport,
    known_timezones,
    scaled,
)
from paperbot.services.digest_delivery import find_post
from paperbot.services.subscriptions import SubscriptionService
from paperbot.storage import personal as store
from paperbot.storage.backend import Database
from paperbot.storage.personal import AlreadyClaimed

log = logging.getLogger(__name__)

DMS_CLOSED_NOTICE = (
    "Your personal digest is off: Discord did not let me send you a DM (your DMs are closed"
    " to me). Allow direct messages from this server's members, then run `/digest me` again."
)


class DmsClosed(DeliveryError):
    """Discord refuses DMs to this reader (error 50007): retrying cannot help."""

    def __init__(self, message: str) -> None:
        super().__init__(message, permanent=True)


class DmTransport(DigestTransport, Protocol):
    """A `DigestTransport` that can also open a reader's DM channel."""

    async def open_dm(self, user_id: int) -> int:
        """The DM channel's id; raises `DmsClosed` (50007) or `DeliveryError`."""


DmOutcome = Literal[
    "posted",
    "already-posted",
    "not-due",
    "not-configured",
    "nothing-new",
    "dms-closed",
    "failed",
    "pending",
    "expired",
]


@dataclass(frozen=True, slots=True)
class DmResult:
    outcome: DmOutcome
    user_id: int
    local_date: date | None = None
    message_id: int | None = None
    detail: str = ""
    papers: int = 0


def daily_time(configured: PersonalSettings) -> DailyTime:
    return DailyTime(configured.post_time, ZoneInfo(configured.timezone))


class PersonalDigestService:
    def __init__(
        self,
        db: Database,
        settings: Settings,
        digest: DigestService,
        subscriptions: SubscriptionService,
    ) -> None:
        self.db = db
        self.settings = settings
        self.digest = digest
        self.subscriptions = subscriptions
        # One claim at a time per reader, so two runs never race for papers.
        self._locks: dict[int, asyncio.Lock] = {}
        # DMs being delivered by this process: `resolve` leaves them alone.
        self._in_flight: set[int] = set()

    # --- configuration ------------------------------------------------------

    def parse(self, time_text: str, timezone_text: str | None) -> tuple[time, ZoneInfo]:
        """Validate `/digest me` options; `ScheduleError` says what is wrong."""
        at = schedule.parse_time(time_text)
        tz_text = timezone_text or self.settings.digest.default_timezone
        return at, schedule.parse_timezone(tz_text, known_timezones())

    async def set_time(
        self,
        *,
        user_id: int,
        guild_id: int | None,
        time_text: str,
        timezone_text: str | None,
        now: datetime,
    ) -> tuple[PersonalSettings, datetime]:
        """Switch the reader's DM on at this time (active from now); returns
        the setting and when the next DM goes out."""
        at, tz = self.parse(time_text, timezone_text)
        saved = await store.save_settings(
            self.db,
            user_id=user_id,
            post_time=at,
            timezone=tz.key,
            count=self.settings.digest.default_count,
            guild_id=guild_id,
            now=now,
        )
        log.info("personal digest set: user %d at %s %s", user_id, at, tz.key)
        return saved, await self.next_post(saved, now)

    async def next_post(self, configured: PersonalSettings, now: datetime) -> datetime:
        """When the next DM goes out; a day that already had its DM is skipped."""
        daily = daily_time(configured)
        today = schedule.local_date(now, daily.tz)
        done = await store.day_post(self.db, configured.user_id, today)
        skip = today if done is not None and done.state not in ("failed", "expired") else None
        return schedule.next_post(now, daily, skip=skip)

    async def off(self, user_id: int, now: datetime) -> bool:
        """Stop the reader's DMs; False when they had none switched on."""
        return await store.switch_off(self.db, user_id, now)

    async def get(self, user_id: int) -> PersonalSettings | None:
        return await store.get_settings(self.db, user_id)

    async def enabled(self) -> list[PersonalSettings]:
        return await store.enabled_settings(self.db)

    async def pending_notice(self, user_id: int) -> str | None:
        """Why the bot switched the reader's DMs off, until they are told."""
        return await store.peek_notice(self.db, user_id)

    async def notice_told(self, user_id: int, notice: str) -> None:
        await store.clear_notice(self.db, user_id, notice)

    async def forget(self, user_id: int) -> int:
        """Remove the reader's personal digest data (for "my data" deletion):
        setting, DMs and the record of what they received; rows removed."""
        return await store.forget_user(self.db, user_id)

    # --- the daily DM -------------------------------------------------------

    async def run_scheduled(self, user_id: int, transport: DmTransport, now: datetime) -> DmResult:
        """The daily job (and the start-up catch-up): the day's DM, once, if
        it is owed and not yet claimed."""
        configured = await store.get_settings(self.db, user_id)
        if configured is None or not configured.enabled:
            return DmResult("not-configured", user_id)
        day = schedule.due_date(now, daily_time(configured), configured.active_since)
        if day is None:
            return DmResult("not-due", user_id)
        existing = await store.day_post(self.db, user_id, day)
        if existing is not None:
            if existing.state in ("claimed", "sent"):
                return await self.resolve(existing, transport, now)
            return DmResult("already-posted", user_id, day, existing.message_id)
        claimed = await self._claim(configured, day, now)
        if not isinstance(claimed, PersonalPost):
            return DmResult(claimed, user_id, day)
        return await self._deliver(claimed, transport, now)

    async def _claim(
        self, configured: PersonalSettings, day: date, now: datetime
    ) -> PersonalPost | Literal["already-posted", "nothing-new"]:
        user_id = configured.user_id
        async with self._locks.setdefault(user_id, asyncio.Lock()):
            demands = [scaled(d) for d in await self.subscriptions.user_demands(user_id)]
            plan, found = await self.digest.plan(
                guild_id=configured.set_in_guild or 0,
                channel_id=None,
                count=configured.count,
                demands=demands,
                reader=user_id,
            )
            picked = [p.paper_id for p in plan.picks if p.paper_id in found]
            if not picked:
                # Everything was sent to them already: no DM rather than an empty one.
                return "nothing-new"
            try:
                return await store.claim(
                    self.db,
                    user_id=user_id,
                    local_date=day,
                    nonce=personal_nonce(user_id, day),
                    message=render_personal(plan, found, day),
                    paper_ids=picked,
                    now=now,
                    deadline=schedule.day_end(day, ZoneInfo(configured.timezone))
                    + schedule.DAY_END_GRACE,
                )
            except AlreadyClaimed:
                log.info("personal digest for user %d on %s already claimed", user_id, day)
                return "already-posted"

    async def _deliver(self, post: PersonalPost, transport: DmTransport, now: datetime) -> DmResult:
        self._in_flight.add(post.id)
        try:
            return await self._send_and_confirm(post, transport, now)
        finally:
            self._in_flight.discard(post.id)

    async def _send_and_confirm(
        self, post: PersonalPost, transport: DmTransport, now: datetime
    ) -> DmResult:
        channel_id = post.channel_id
        try:
            if channel_id is None:
                channel_id = await transport.open_dm(post.user_id)
                await store.set_channel(self.db, post.id, channel_id)
            await store.mark_sent(self.db, post.id, now)
            message_id = await transport.send(channel_id, post.message, post.nonce)
        except DeliveryError as exc:
            return await self._failed(post, exc, now)
        await store.confirm(self.db, post.id, message_id)
        log.info(
            "personal digest sent: user %d date %s message %d",
            post.user_id,
            post.local_date,
            message_id,
        )
        return DmResult(
            "posted", post.user_id, post.local_date, message_id, papers=len(post.paper_ids)
        )

    async def _failed(self, post: PersonalPost, exc: DeliveryError, now: datetime) -> DmResult:
        if isinstance(exc, DmsClosed):
            # Refused, so nothing went out: the papers stay new to the reader.
            log.info("personal digest for user %d switched off: %s", post.user_id, exc)
            await store.close_post(self.db, post.id, "failed", str(exc))
            await store.switch_off(self.db, post.user_id, now, DMS_CLOSED_NOTICE)
            return DmResult("dms-closed", post.user_id, post.local_date, detail=str(exc))
        if exc.permanent:
            log.warning("personal digest for user %d failed for good: %s", post.user_id, exc)
            await store.close_post(self.db, post.id, "failed", str(exc))
            return DmResult("failed", post.user_id, post.local_date, detail=str(exc))
        log.warning("personal digest for user %d: send failed, will resolve: %s", post.user_id, exc)
        await store.note_error(self.db, post.id, str(exc))
        return DmResult("pending", post.user_id, post.local_date, detail=str(exc))

    # --- after a crash ------------------------------------------------------

    async def recover(self, transport: DmTransport, now: datetime) -> list[DmResult]:
        """Resolve every DM a crash (or an unknown send outcome) left open."""
        return [
            await self.resolve(post, transport, now) for post in await store.open_posts(self.db)
        ]

    async def resolve(self, post: PersonalPost, transport: DmTransport, now: datetime) -> DmResult:
        """Finish a DM whose delivery is unknown, without ever sending it twice."""
        if post.id in self._in_flight:
            return DmResult("pending", post.user_id, post.local_date, detail="in flight")
        current = await store.get_post(self.db, post.id)
        if current is None or current.state not in ("claimed", "sent"):
            return DmResult("already-posted", post.user_id, post.local_date)
        still_today = now < current.deadline
        if current.state == "claimed":
            # The request never left: deliver while the reader's day is on.
            if still_today:
                return await self._deliver(current, transport, now)
            await store.close_post(self.db, current.id, "expired", "not sent before its day ended")
            return DmResult("expired", current.user_id, current.local_date)
        return await self._resolve_sent(current, transport, now, still_today=still_today)

    async def _resolve_sent(
        self, post: PersonalPost, transport: DmTransport, now: datetime, *, still_today: bool
    ) -> DmResult:
        """Found in the DM channel it is confirmed; otherwise re-sent only
        when that cannot make a second DM."""
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
            return await self._unconfirmed(post, exc, still_today=still_today)
        mine = find_post(recent, post.header)
        if mine is not None:
            await store.confirm(self.db, post.id, mine.id)
            return DmResult(
                "posted", post.user_id, post.local_date, mine.id, papers=len(post.paper_ids)
            )
        if len(recent) >= HISTORY_LIMIT:
            await store.close_post(
                self.db, post.id, "expired", "outcome unknown (long history)", free_papers=False
            )
            return DmResult("expired", post.user_id, post.local_date)
        if still_today and post.attempts < MAX_ATTEMPTS:
            return await self._deliver(post, transport, now)
        reason = (
            f"not delivered after {post.attempts} attempts: {post.error or 'unknown error'}"
            if post.attempts >= MAX_ATTEMPTS
            else "not delivered before its day ended"
        )
        await store.close_post(self.db, post.id, "failed", reason)
        return DmResult("failed", post.user_id, post.local_date, detail=reason)

    async def _unconfirmed(
        self, post: PersonalPost, exc: DeliveryError, *, still_today: bool
    ) -> DmResult:
        """History could not be read: the DM may be out, so its papers stay
        received and it is not sent again; a transient error is retried while
        the day lasts."""
        if not exc.permanent and still_today:
            await store.note_error(self.db, post.id, str(exc))
            return DmResult("pending", post.user_id, post.local_date, detail=str(exc))
        await store.close_post(
            self.db, post.id, "failed", f"outcome unknown: {exc}", free_papers=False
        )
        return DmResult("failed", post.user_id, post.local_date, detail=str(exc))
