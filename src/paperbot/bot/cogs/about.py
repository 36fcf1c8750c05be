"""`/about`: what the bot is, the corpus, the topics, this server's digest, the version."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

import discord
from discord import app_commands
from discord.ext import commands

from paperbot import __version__
from paperbot.bot.respond import reply, thinking_when_slow, translator
from paperbot.clock import utc_now
from paperbot.core.models import VenueCount
from paperbot.core.render import EmbedData, EmbedField, MessageData, Translate, trim

if TYPE_CHECKING:
    from paperbot.bot.client import PaperBot

log = logging.getLogger(__name__)

COLOR = 0x5865F2
VENUES_SHOWN = 12

ABOUT_DESCRIPTION = "What this bot is, what it knows, and this server's digest"
TAGLINE = (
    "Bilingual search over ML paper digests, topic subscriptions and a daily digest. "
    "Try /search, /subscribe and /digest."
)
PAPERS = "Papers"
VENUES = "Venues"
TOPICS = "Topics"
DIGEST = "This server's digest"
NO_DIGEST = "Not set up: a server admin can run /digest setup."
DIGEST_OFF = "Turned off."
DIGEST_ON = "{count} papers daily at {time} ({timezone}) in <#{channel}>; next post <t:{next}:R>."
DIGEST_DM = "Digests are per server: run /about in a server to see its schedule."
UNKNOWN = "unknown"
VERSION = "paperbot {version}"

ZH_CN: dict[str, str] = {
    ABOUT_DESCRIPTION: "这个机器人是什么、收录了什么，以及本服务器的每日摘要",
    TAGLINE: (
        "机器学习论文摘要的中英双语搜索、主题订阅和每日摘要。试试 /search、/subscribe 和 /digest。"
    ),
    PAPERS: "论文",
    VENUES: "会议",
    TOPICS: "主题",
    DIGEST: "本服务器的每日摘要",
    NO_DIGEST: "尚未设置：服务器管理员可以运行 /digest setup。",
    DIGEST_OFF: "已关闭。",
    DIGEST_ON: (
        "每天 {time}（{timezone}）在 <#{channel}> 推送 {count} 篇论文；下次推送 <t:{next}:R>。"
    ),
    DIGEST_DM: "每日摘要按服务器设置：请在服务器中运行 /about 查看。",
    UNKNOWN: "未知",
}


@dataclass(frozen=True, slots=True)
class DigestSchedule:
    channel_id: int
    time: str
    timezone: str
    count: int
    enabled: bool
    next_post: datetime | None


@dataclass(frozen=True, slots=True)
class AboutInfo:
    papers: int
    venues: tuple[VenueCount, ...]
    topics: int | None
    digest: DigestSchedule | None
    in_guild: bool
    version: str = __version__


def render_about(info: AboutInfo, tr: Translate) -> MessageData:
    """The /about embed as plain render data (pure: no discord, no I/O)."""
    venue_lines = [f"{v.venue} {v.year}: {v.papers}" for v in info.venues[:VENUES_SHOWN]]
    if len(info.venues) > VENUES_SHOWN:
        venue_lines.append(f"+{len(info.venues) - VENUES_SHOWN}")
    fields = [
        EmbedField(tr(PAPERS), str(info.papers), inline=True),
        EmbedField(tr(TOPICS), str(info.topics) if info.topics is not None else tr(UNKNOWN), True),
        EmbedField(tr(VENUES), trim("\n".join(venue_lines) or "—", 1024)),
        EmbedField(tr(DIGEST), trim(_digest_text(info, tr), 1024)),
    ]
    embed = EmbedData(
        title="paperbot",
        description=tr(TAGLINE),
        fields=tuple(fields),
        footer=tr(VERSION).format(version=info.version),
        color=COLOR,
    )
    return MessageData(embeds=(embed,))


def _digest_text(info: AboutInfo, tr: Translate) -> str:
    if not info.in_guild:
        return tr(DIGEST_DM)
    schedule = info.digest
    if schedule is None:
        return tr(NO_DIGEST)
    if not schedule.enabled:
        return tr(DIGEST_OFF)
    next_post = int(schedule.next_post.timestamp()) if schedule.next_post else 0
    return tr(DIGEST_ON).format(
        count=schedule.count,
        time=schedule.time,
        timezone=schedule.timezone,
        channel=schedule.channel_id,
        next=next_post,
    )


class _DigestLookup(Protocol):
    async def get_settings(self, guild_id: int) -> Any: ...
    async def next_post(self, settings: Any, now: datetime) -> datetime: ...


class About(commands.Cog):
    def __init__(self, bot: PaperBot) -> None:
        self.bot = bot

    async def gather(self, guild_id: int | None, now: datetime) -> AboutInfo:
        corpus = self.bot.app.corpus
        return AboutInfo(
            papers=await corpus.paper_count(),
            venues=tuple(await corpus.venues()),
            topics=len(self.bot.app.topics.vocabulary),
            digest=await self._digest(guild_id, now) if guild_id else None,
            in_guild=guild_id is not None,
        )

    async def _digest(self, guild_id: int, now: datetime) -> DigestSchedule | None:
        # The digest service joins App in its own issue; /about shows it once it exists.
        service: _DigestLookup | None = getattr(self.bot.app, "digest", None)
        if service is None:
            return None
        settings = await service.get_settings(guild_id)
        if settings is None:
            return None
        return DigestSchedule(
            channel_id=settings.channel_id,
            time=settings.post_time.strftime("%H:%M"),
            timezone=settings.timezone,
            count=settings.count,
            enabled=settings.enabled,
            next_post=await service.next_post(settings, now) if settings.enabled else None,
        )

    @app_commands.command(name="about", description=ABOUT_DESCRIPTION)
    async def about(self, interaction: discord.Interaction[PaperBot]) -> None:
        async with thinking_when_slow(interaction):
            info = await self.gather(interaction.guild_id, utc_now())
        await reply(interaction, render_about(info, translator(interaction)))


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(About(bot))
