"""The daily digest use-cases: setup, off, now, preview, the scheduled run,
and resolving posts a crash left open.

Sending goes through a `DigestTransport` the bot layer passes in, so this
module never imports discord and the tests drive it with a fake.

Exactly one scheduled post per server and local date:

1. claim: the post row (unique per guild and date) with the rendered message
   and the papers marked as seen, in one transaction;
2. mark sent, then send with the post's deterministic nonce (discord.py 2.7
   adds `enforce_nonce: true` whenever a nonce is given);
3. confirm with the message id.

A crash after 1 leaves `claimed` (nothing went out: send it if the day is
still on). A crash after 2 leaves `sent`: within Discord's nonce window a
re-send with the same nonce returns the first message instead of making a
second; later, the channel's recent history is searched for the post's
header line, and only if the history since the claim is complete and holds
no such message is it sent again.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import zoneinfo
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from functools import cache
from typing import Literal
from zoneinfo import ZoneInfo

from paperbot.config import Settings
from paperbot.core import schedule
from paperbot.core.digest import (
    CorpusArrays,
    DigestPlan,
    PreparedDemand,
    TopicDemand,
    pick,
)
from paperbot.core.digest_render import digest_header, render_digest
from paperbot.core.models import DigestPost, DigestSettings, Paper
from paperbot.core.profile import Personalization
from paperbot.core.render import MessageData
from paperbot.core.schedule import DailyTime, ScheduleError
from paperbot.services.digest_audience import (
    READER,
    Audience,
    reader_demands,
    scaled,
    subscriber_audience,
)
from paperbot.services.digest_delivery import (
    HISTORY_LIMIT,
    MAX_ATTEMPTS,
    NONCE_WINDOW,
    ChannelMessage,
    DeliveryError,
    DigestDelivery,
    DigestTransport,
    Outcome,
    PostResult,
)
from paperbot.services.workers import off_loop
from paperbot.storage import digests as store
from paperbot.storage import papers, search_index
from paperbot.storage import personal as personal_store
from paperbot.storage.backend import Database
from paperbot.storage.db import StorageError
from paperbot.storage.digests import AlreadyClaimed

# Delivery lives in services/digest_delivery.py; these names are re-exported
# because the bot, the personal digest and the tests reach them through here.
__all__ = [
    "HISTORY_LIMIT",
    "MAX_ATTEMPTS",
    "NONCE_WINDOW",
    "READER",
    "Audience",
    "ChannelMessage",
    "DeliveryError",
    "DigestInputError",
    "DigestService",
    "DigestTransport",
    "Outcome",
    "PostResult",
    "Preview",
    "reader_demands",
    "scaled",
    "subscriber_audience",
]

log = logging.getLogger(__name__)

COUNT_RANGE = (1, 10)


def _plan(
    corpus: CorpusArrays,
    demands: Sequence[TopicDemand],
    posted: Sequence[int],
    count: int,
    personal: Personalization | None = None,
) -> DigestPlan:
    return pick(corpus, PreparedDemand.build(corpus, demands), posted, count, personal)


# (guild, corpus, audience, reader or None) -> what votes and mutes change
# (`FeedbackService.personalization`); None when nothing does.
Personalizer = Callable[
    [int, CorpusArrays, Collection[int], int | None], Awaitable[Personalization | None]
]


class DigestInputError(ValueError):
    """A user error: `str()` is the message to show."""


@dataclass(frozen=True, slots=True)
class Preview:
    plan: DigestPlan
    papers: dict[int, Paper]
    message: MessageData
    channel_id: int | None
    # Papers loaded: 0 means "nothing loaded", not "everything posted".
    corpus_size: int = 0


@cache
def known_timezones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def daily_time(settings: DigestSettings) -> DailyTime:
    return DailyTime(settings.post_time, ZoneInfo(settings.timezone))


class DigestService(DigestDelivery):
    def __init__(self, db: Database, settings: Settings, audience: Audience | None = None) -> None:
        self.db = db
        self.settings = settings
        self.audience = audience
        # Votes and mutes steer every pick through here (set by `App`).
        self.personalizer: Personalizer | None = None
        # Several processes: this one schedules, posts and recovers only the
        # servers on its shards (the others' owners do theirs).
        self.shards = settings.bot.shard_set
        self._corpus: tuple[int, CorpusArrays] | None = None
        # One pick-claim at a time per channel, so two posts never race for papers.
        self._locks: dict[int, asyncio.Lock] = {}
        # Posts being delivered by this process: `resolve` leaves them alone.
        self._in_flight: set[int] = set()

    # --- configuration ------------------------------------------------------

    def parse_setup(
        self, time_text: str, timezone_text: str | None, count: int | None
    ) -> tuple[time, ZoneInfo, int]:
        """Validate the options of /digest setup; `ScheduleError` says what is wrong."""
        at = schedule.parse_time(time_text)
        tz_text = timezone_text or self.settings.digest.default_timezone
        tz = schedule.parse_timezone(tz_text, known_timezones())
        n = self.settings.digest.default_count if count is None else count
        if not COUNT_RANGE[0] <= n <= COUNT_RANGE[1]:
            raise ScheduleError(f"count must be between 1 and 10 (got {n}).")
        return at, tz, n

    async def setup(
        self,
        *,
        guild_id: int,
        channel_id: int,
        time_text: str,
        timezone_text: str | None,
        count: int | None,
        user_id: int | None,
        now: datetime,
    ) -> tuple[DigestSettings, datetime]:
        """Store a schedule (active from now); returns it with the next post time."""
        at, tz, n = self.parse_setup(time_text, timezone_text, count)
        saved = await store.save_settings(
            self.db,
            guild_id=guild_id,
            channel_id=channel_id,
            post_time=at,
            timezone=tz.key,
            count=n,
            updated_by=user_id,
            now=now,
        )
        log.info("digest set up: guild %d channel %d at %s", guild_id, channel_id, at)
        return saved, await self.next_post(saved, now)

    async def next_post(self, settings: DigestSettings, now: datetime) -> datetime:
        """When the next scheduled post goes out; a day already posted is skipped."""
        daily = daily_time(settings)
        today = schedule.local_date(now, daily.tz)
        done = await store.scheduled_post(self.db, settings.guild_id, today)
        skip = today if done is not None and done.state not in ("failed", "expired") else None
        return schedule.next_post(now, daily, skip=skip)

    async def off(self, guild_id: int, now: datetime) -> bool:
        return await store.set_enabled(self.db, guild_id, False, now)

    async def get_settings(self, guild_id: int) -> DigestSettings | None:
        return await store.get_settings(self.db, guild_id)

    async def enabled(self) -> list[DigestSettings]:
        """Switched-on schedules of the servers on this process's shards."""
        return [s for s in await store.enabled_settings(self.db) if self.shards.owns(s.guild_id)]

    async def follow_settings(self, changed: Callable[[int], None]) -> None:
        """Call `changed(guild_id)` when any process changes a server's schedule."""
        await self.db.listen(store.SETTINGS_CHANNEL, lambda payload: changed(int(payload)))

    async def hold_shards(self) -> None:
        """Take this process's shards for as long as it lives, or refuse to
        start: two processes running one shard would both recover its posts.
        The database drops the hold when the process dies (its connection
        closes), so a restart after a crash takes the shards back at once."""
        for shard in self.shards.ids:
            if not await self.db.hold(f"paperbot-shard:{self.shards.count}:{shard}"):
                raise StorageError(
                    f"shard {shard} of {self.shards.count} is already run by another "
                    "paperbot process on this database: give each process its own shards"
                )

    async def take_failure(self, guild_id: int) -> tuple[str, datetime] | None:
        """A failure admins have not been told about yet (cleared by reading it)."""
        return await store.take_failure(self.db, guild_id)

    # --- picking ------------------------------------------------------------

    async def corpus_arrays(self) -> CorpusArrays:
        """The corpus as picking arrays, built once per corpus version (in the
        worker process at scale: the paper vectors take seconds for a large
        corpus, and a thread building them held the GIL so long that a burst
        of interactions during a pick went unacknowledged past 3 seconds)."""
        version = await papers.corpus_version(self.db)
        if self._corpus is None or self._corpus[0] != version:
            # Columns read in batches, not Paper objects decoded at once:
            # at 100,000 papers that decoding held the event loop for seconds.
            columns = await search_index.paper_columns(self.db)
            rows = list(zip(columns.ids, columns.venues, columns.years, strict=True))
            texts = {
                pid: f"{title}\n{summary}"
                for pid, title, summary in zip(
                    columns.ids, columns.titles, columns.summaries, strict=True
                )
            }
            del columns
            self._corpus = (version, await off_loop(len(rows), CorpusArrays.build, rows, texts))
        return self._corpus[1]

    async def plan(
        self,
        *,
        guild_id: int,
        channel_id: int | None,
        count: int,
        demands: Sequence[TopicDemand] | None = None,
        reader: int | None = None,
        personalized: bool = True,
    ) -> tuple[DigestPlan, dict[int, Paper]]:
        """The picks for a channel now, and the papers they name: the server's
        picks, or with `reader` that reader's own (their votes and mutes
        only; what they already got, by DM or in their servers' digests, is left
        out); `personalized=False` ignores votes and mutes."""
        corpus = await self.corpus_arrays()
        if demands is None:
            demands = await self.audience(guild_id) if self.audience is not None else []
        posted = await store.posted_ids(self.db, channel_id) if channel_id is not None else []
        if reader is not None:
            posted += await personal_store.received_ids(self.db, reader)
        personal = None
        if personalized and self.personalizer is not None:
            audience = {u for d in demands for u in d.subscribers}
            personal = await self.personalizer(guild_id, corpus, audience, reader)
        # Picking is CPU work (milliseconds to a few hundred on a large corpus):
        # it runs in a worker thread so the bot's event loop never waits on it.
        plan = await asyncio.to_thread(_plan, corpus, demands, posted, count, personal)
        found = await papers.get_papers(self.db, [p.paper_id for p in plan.picks])
        return plan, {p.id: p for p in found}

    async def preview(
        self,
        guild_id: int,
        now: datetime,
        *,
        count: int | None = None,
        demands: Sequence[TopicDemand] | None = None,
        reader: int | None = None,
        personalized: bool = True,
    ) -> Preview:
        """What the next post would hold (nothing is stored); with `reader`,
        that reader's own picks (see `plan`)."""
        configured = await store.get_settings(self.db, guild_id)
        channel = configured.channel_id if configured else None
        n = count or (configured.count if configured else self.settings.digest.default_count)
        tz = ZoneInfo(configured.timezone if configured else self.settings.digest.default_timezone)
        plan, found = await self.plan(
            guild_id=guild_id,
            channel_id=channel,
            count=n,
            demands=demands,
            reader=reader,
            personalized=personalized,
        )
        day = schedule.local_date(now, tz)
        message = render_digest(plan, found, digest_header(day))
        corpus_size = len((await self.corpus_arrays()).ids)
        return Preview(plan, found, message, channel, corpus_size)

    # --- posting ------------------------------------------------------------

    async def post_now(
        self, guild_id: int, transport: DigestTransport, now: datetime
    ) -> PostResult:
        """/digest now: an extra post into the configured channel (never a repeat)."""
        configured = await store.get_settings(self.db, guild_id)
        if configured is None:
            raise DigestInputError("No digest is set up here yet: run `/digest setup` first.")
        day = schedule.local_date(now, ZoneInfo(configured.timezone))
        post = await self._claim(
            configured, "manual", day, f"m{secrets.randbits(62)}", now, extra=True
        )
        if post is None:
            return PostResult("already-posted", guild_id, day)
        return await self._deliver(post, transport, now)

    async def run_scheduled(
        self, guild_id: int, transport: DigestTransport, now: datetime
    ) -> PostResult:
        """The scheduled job (and the start-up catch-up): post the day's digest
        once, if it is owed and not yet claimed."""
        configured = await store.get_settings(self.db, guild_id)
        if configured is None or not configured.enabled:
            return PostResult("not-configured", guild_id)
        day = schedule.due_date(now, daily_time(configured), configured.active_since)
        if day is None:
            return PostResult("not-due", guild_id)
        existing = await store.scheduled_post(self.db, guild_id, day)
        if existing is not None:
            if existing.state in ("claimed", "sent"):
                return await self.resolve(existing, transport, now)
            # A day whose post failed is tried again only once an admin has
            # run /digest setup since (no retry loop against a broken channel).
            retry = existing.state in ("failed", "expired")
            if not (retry and configured.active_since > existing.claimed_at):
                return PostResult("already-posted", guild_id, day, existing.message_id)
        nonce = schedule.digest_nonce(guild_id, day)
        post = await self._claim(configured, "scheduled", day, nonce, now, extra=False)
        if post is None:
            return PostResult("already-posted", guild_id, day)
        return await self._deliver(post, transport, now)

    async def _claim(
        self,
        configured: DigestSettings,
        kind: Literal["scheduled", "manual"],
        day: date,
        nonce: str,
        now: datetime,
        *,
        extra: bool,
    ) -> DigestPost | None:
        tz = ZoneInfo(configured.timezone)
        lock = self._locks.setdefault(configured.channel_id, asyncio.Lock())
        async with lock:
            plan, found = await self.plan(
                guild_id=configured.guild_id,
                channel_id=configured.channel_id,
                count=configured.count,
            )
            message = render_digest(plan, found, digest_header(day, extra=extra))
            try:
                return await store.claim(
                    self.db,
                    guild_id=configured.guild_id,
                    channel_id=configured.channel_id,
                    kind=kind,
                    local_date=day,
                    nonce=nonce,
                    message=message,
                    paper_ids=[p.paper_id for p in plan.picks if p.paper_id in found],
                    now=now,
                    deadline=schedule.day_end(day, tz) + schedule.DAY_END_GRACE,
                )
            except AlreadyClaimed:
                log.info("digest for guild %d on %s already claimed", configured.guild_id, day)
                return None
