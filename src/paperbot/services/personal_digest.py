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

Exactly once, by the server digest's own state machine
(`services.digest_delivery.PostDelivery`; only where a DM goes and what
closed DMs do are its own):

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
from datetime import date, datetime, time
from typing import Literal, Protocol
from zoneinfo import ZoneInfo

from paperbot.config import Settings
from paperbot.core import schedule
from paperbot.core.personal import PersonalPost, PersonalSettings, personal_nonce, render_personal
from paperbot.core.schedule import DailyTime
from paperbot.services.digest import DigestService, known_timezones, scaled
from paperbot.services.digest_delivery import (
    DeliveryError,
    DeliveryOutcome,
    DigestTransport,
    PostDelivery,
    PostStore,
)
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


class PersonalDigestService(PostDelivery[PersonalPost, DmResult, DmTransport]):
    """`/digest me` and the daily DM; delivered like a server post
    (`PostDelivery`), into the reader's DM channel, opened on the first try."""

    posts: PostStore[PersonalPost] = store
    busy_history = "outcome unknown (long history)"

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

    # --- what differs from a server post (`PostDelivery` does the rest) -------

    def _result(
        self,
        outcome: DeliveryOutcome,
        post: PersonalPost,
        message_id: int | None = None,
        *,
        detail: str = "",
        papers: int = 0,
    ) -> DmResult:
        return DmResult(outcome, post.user_id, post.local_date, message_id, detail, papers)

    def _label(self, post: PersonalPost) -> str:
        return f"personal digest for user {post.user_id}"

    async def _channel(self, post: PersonalPost, transport: DmTransport) -> int:
        """The reader's DM channel, opened (and kept for history) on the first try."""
        if post.channel_id is not None:
            return post.channel_id
        channel_id = await transport.open_dm(post.user_id)
        await store.set_channel(self.db, post.id, channel_id)
        return channel_id

    async def _refused(
        self, post: PersonalPost, exc: DeliveryError, now: datetime
    ) -> DmResult | None:
        if not isinstance(exc, DmsClosed):
            return None
        # Refused, so nothing went out: the papers stay new to the reader.
        log.info("personal digest for user %d switched off: %s", post.user_id, exc)
        await store.switch_off(self.db, post.user_id, now, DMS_CLOSED_NOTICE)
        return DmResult("dms-closed", post.user_id, post.local_date, detail=str(exc))
