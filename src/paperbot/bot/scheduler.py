"""The digest scheduler: one APScheduler `CronTrigger` per server, in its timezone.

`start(bot)` (called by the runner once the bot is ready) rebuilds the jobs
from SQLite, resolves posts a crash left open, posts the digests missed
while the bot was down (only while the server's local day lasts), and keeps
a slow job that resolves posts whose send failed for a transient reason.
`/digest setup` and `/digest off` reschedule through `running(bot)`.

Many servers due the same minute go through one `SendPacer`, which spaces
digest sends so the bot stays far below Discord's global rate limit.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from paperbot.bot import personal_scheduler
from paperbot.bot.daily_jobs import Clock, DailyJobs
from paperbot.bot.embeds import message_kwargs
from paperbot.bot.views.reader_actions import reader_view
from paperbot.clock import utc_now
from paperbot.core.models import DigestSettings
from paperbot.core.render import MessageData
from paperbot.core.shards import ShardSet
from paperbot.services.digest import (
    ChannelMessage,
    DeliveryError,
    DigestService,
    DigestTransport,
    PostResult,
)

if TYPE_CHECKING:
    from paperbot.bot.client import PaperBot

log = logging.getLogger(__name__)

# Digest sends at most this often, whatever the number of servers due at once
# (Discord's global limit is 50 requests/s; one post per channel per day).
SEND_INTERVAL_S = 0.25
#: What all processes together may send per second (Discord allows 50 per bot
#: token; the rest is left for interaction follow-ups and history reads).
GLOBAL_SENDS_PER_S = 40.0


class SendPacer:
    """Spaces calls at least `interval` seconds apart, in arrival order."""

    def __init__(
        self,
        interval: float = SEND_INTERVAL_S,
        *,
        monotonic: Callable[[], float] | None = None,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self.interval = interval
        self._monotonic = monotonic
        self._sleep = sleep
        self._lock = asyncio.Lock()
        self._last: float | None = None

    def _now(self) -> float:
        return self._monotonic() if self._monotonic else asyncio.get_running_loop().time()

    async def wait(self) -> None:
        async with self._lock:
            if self._last is not None:
                delay = self._last + self.interval - self._now()
                if delay > 0:
                    await self._sleep(delay)
            self._last = self._now()


def send_interval(shards: ShardSet) -> float:
    """This process's spacing of digest sends: its shard share of the global
    budget, so N processes with disjoint shards stay under it together with
    no coordination (never faster than one process alone)."""
    share = len(shards.ids) / shards.count
    return max(SEND_INTERVAL_S, 1.0 / (GLOBAL_SENDS_PER_S * share))


class DiscordTransport:
    """`DigestTransport` over discord.py, by channel id (no cache needed)."""

    def __init__(self, bot: discord.Client, pacer: SendPacer | None = None) -> None:
        self.bot = bot
        self.pacer = pacer or SendPacer()

    async def send(self, channel_id: int, message: MessageData, nonce: str) -> int:
        channel = self.bot.get_partial_messageable(channel_id)
        await self.pacer.wait()
        try:
            # discord.py 2.7 sends `enforce_nonce: true` with every nonce
            # (http.handle_message_parameters), which makes the re-send after
            # a crash return the first message instead of a second one.
            # 👍 👎 🔖 and "more like this" for every pick (persistent: see
            # `bot.views.reader_actions`); a post without papers gets none.
            kwargs = message_kwargs(message)
            view = reader_view(message)
            if view is not None:
                kwargs["view"] = view
            sent = await channel.send(**kwargs, nonce=nonce)
        except (discord.HTTPException, aiohttp.ClientError, TimeoutError, OSError) as exc:
            raise delivery_error(exc, channel_id) from exc
        return sent.id

    async def history(
        self, channel_id: int, after: datetime, limit: int
    ) -> Sequence[ChannelMessage]:
        channel = self.bot.get_partial_messageable(channel_id)
        me = self.bot.user.id if self.bot.user else None
        found: list[ChannelMessage] = []
        try:
            async for msg in channel.history(after=after, limit=limit, oldest_first=True):
                found.append(
                    ChannelMessage(msg.id, msg.created_at, msg.author.id == me, msg.content)
                )
        except (discord.HTTPException, aiohttp.ClientError, TimeoutError, OSError) as exc:
            raise delivery_error(exc, channel_id) from exc
        return found


def delivery_error(exc: BaseException, channel_id: int) -> DeliveryError:
    """What went wrong, in words an admin can act on; permanent or not."""
    if isinstance(exc, discord.NotFound):
        return DeliveryError(f"the channel <#{channel_id}> no longer exists", permanent=True)
    if isinstance(exc, discord.Forbidden):
        return DeliveryError(
            f"I lost permission to post in <#{channel_id}> (I need View Channel, Send Messages,"
            " Embed Links and Read Message History there)",
            permanent=True,
        )
    if isinstance(exc, discord.HTTPException) and 400 <= exc.status < 500 and exc.status != 429:
        return DeliveryError(f"Discord refused the post ({exc.status}: {exc.text})", permanent=True)
    return DeliveryError(
        f"Discord could not be reached ({type(exc).__name__}: {exc})", permanent=False
    )


class DigestScheduler(DailyJobs[DigestSettings, PostResult, DigestTransport]):
    """The server digests' jobs (`DailyJobs`, keyed by guild) on this
    process's scheduler, following schedule changes made elsewhere."""

    name = "digest"
    label = "digest run for guild"
    plural = "digests"

    def __init__(
        self,
        service: DigestService,
        transport: DigestTransport,
        *,
        clock: Clock = utc_now,
    ) -> None:
        self.service: DigestService = service
        self.transport = transport
        self.clock = clock
        self.scheduler = AsyncIOScheduler(timezone=UTC)
        self._followups: set[asyncio.Task[None]] = set()

    def key(self, settings: DigestSettings) -> int:
        return settings.guild_id

    def crashed(self, key: int) -> PostResult:
        return PostResult("failed", key, detail="internal error")

    async def start(self) -> None:
        """Rebuild the jobs of this process's shards from the database, follow
        schedule changes made elsewhere, then catch up in the background."""
        await self.service.follow_settings(self.changed_elsewhere)
        self.scheduler.start()
        await super().start()
        log.info("digest scheduler started")

    @property
    def catching_up(self) -> asyncio.Task[list[PostResult]] | None:
        """The start-up catch-up while it may still run (the DMs wait for it)."""
        return self._catch_up

    def changed_elsewhere(self, guild_id: int) -> None:
        """Another process (or the CLI) changed a schedule: if the server is on
        our shards, re-read it and (re)place its job at once."""
        if not self.service.shards.owns(guild_id):
            return
        task = asyncio.create_task(self._reschedule(guild_id), name=f"digest-follow-{guild_id}")
        self._followups.add(task)
        task.add_done_callback(self._followups.discard)

    async def _reschedule(self, guild_id: int) -> None:
        try:
            settings = await self.service.get_settings(guild_id)
        except Exception:  # a database blip must not kill the listener
            log.exception("could not re-read the digest schedule of guild %d", guild_id)
            return
        if settings is None:
            self.unschedule(guild_id)
        elif self.scheduler.running:
            self.schedule(settings)
            log.info("digest schedule of guild %d followed from another process", guild_id)

    async def shutdown(self) -> None:
        await super().shutdown()
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        log.info("digest scheduler stopped")


def job_id(guild_id: int) -> str:
    return f"{DigestScheduler.name}:{guild_id}"


_RUNNING: weakref.WeakKeyDictionary[discord.Client, DigestScheduler] = weakref.WeakKeyDictionary()


def running(bot: discord.Client) -> DigestScheduler | None:
    """The bot's started scheduler, for /digest setup and off."""
    return _RUNNING.get(bot)


async def start(bot: PaperBot, *, clock: Clock = utc_now) -> DigestScheduler:
    """Start the digest scheduler for a ready bot (called by the runner)."""
    pacer = SendPacer(send_interval(bot.app.digest.shards))
    scheduler = DigestScheduler(bot.app.digest, DiscordTransport(bot, pacer), clock=clock)
    await scheduler.start()
    _RUNNING[bot] = scheduler
    # Personal DMs run on the same scheduler and send pacer.
    try:
        await personal_scheduler.start(bot, bot.app.personal, scheduler, clock=clock)
    except Exception:  # the server digests keep running without the DMs
        log.exception("the personal digest jobs failed to start: no DMs until restart")
    return scheduler


async def shutdown(scheduler: DigestScheduler) -> None:
    await personal_scheduler.shutdown(scheduler)
    await scheduler.shutdown()
