"""`/digest setup|off|now|preview`: the server's daily paper digest.

Discord can only restrict a whole command group, and `preview` is for
everyone, so `setup`, `now` and `off` check Manage Server themselves
(`has_permissions`): others get the error handler's ephemeral refusal and
nothing changes. Every reply here is ephemeral; the digest itself is the
only public message, and it pings exactly the subscribers it names.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from paperbot.bot import scheduler as digest_scheduler
from paperbot.bot.cogs import digest_history, digest_me
from paperbot.bot.cogs.digest_history import DigestHistoryCommands
from paperbot.bot.cogs.digest_me import PersonalDigestCommands
from paperbot.bot.errors import UserError, permission_names
from paperbot.bot.respond import localize, reply, thinking_when_slow
from paperbot.clock import utc_now
from paperbot.core.render import MessageData
from paperbot.core.schedule import ScheduleError, suggest_timezones
from paperbot.services.digest import (
    DigestInputError,
    DigestService,
    DigestTransport,
    PostResult,
    known_timezones,
)

if TYPE_CHECKING:
    from paperbot.bot.client import PaperBot

log = logging.getLogger(__name__)

# What the bot needs in the digest channel (history: to confirm a post after a crash).
NEEDED = ("view_channel", "send_messages", "embed_links", "read_message_history")

GROUP = "The server's daily paper digest"
SETUP = "Post a daily digest of papers picked for this server's subscribers"
SETUP_CHANNEL = "Text channel to post in"
SETUP_TIME = "Time of day, HH:MM on a 24-hour clock (e.g. 09:00)"
SETUP_TIMEZONE = "IANA timezone, e.g. Asia/Shanghai (default from the bot's settings)"
SETUP_COUNT = "Papers per post, 1-10"
OFF = "Stop the daily digest (settings are kept)"
NOW = "Post an extra digest now (never repeats papers; not the day's post)"
PREVIEW = "Show privately what the next digest would post"

SET_UP = (
    "Daily digest set: {count} papers at {time} ({timezone}) in {channel}.\n"
    "Next post: <t:{ts}:F> (<t:{ts}:R>)."
)
TURNED_OFF = "The daily digest is off. Your settings are kept: `/digest setup` turns it back on."
NOT_SET_UP = "No digest is set up in this server yet: run `/digest setup` first."
CANNOT_POST = "I can't post in {channel}: I need {permissions} there."
POSTED = "Posted {count} papers in {channel}: {link}"
# No papers went out: everything was posted already, or nothing is loaded; the post says which.
POSTED_NOTHING_LEFT = "{channel} got a digest without papers (the post says why): {link}"
NOT_POSTED = "The digest could not be posted: {reason}"
PENDING = "Discord did not answer; I'll retry the post shortly: {reason}"
PREVIEW_NOTE = "Preview: only you can see this. {where}"
PREVIEW_WHERE = "Next post <t:{ts}:R> in {channel}, notifying {people} subscribers."
PREVIEW_OFF = "The digest is off; `/digest setup` turns it on."
PREVIEW_NO_SETUP = "No digest is set up yet; a server admin can run `/digest setup`."
INVALID = "{error}"
FAILURE = "⚠️ {failure} (at <t:{ts}:f>). Check the bot's permissions or run `/digest setup`."

ZH_CN: dict[str, str] = {
    GROUP: "本服务器的每日论文摘要",
    SETUP: "每天推送为本服务器订阅者挑选的论文摘要",
    SETUP_CHANNEL: "推送到的文字频道",
    SETUP_TIME: "每天的时间，24 小时制 HH:MM（例如 09:00）",
    SETUP_TIMEZONE: "IANA 时区，例如 Asia/Shanghai（默认取机器人设置）",
    SETUP_COUNT: "每次推送的论文数，1-10",
    OFF: "停止每日摘要（保留设置）",
    NOW: "立即额外推送一次（不会重复论文，不算当天的推送）",
    PREVIEW: "私下查看下一次摘要会推送什么",
    SET_UP: (
        "每日摘要已设置：每天 {time}（{timezone}）在 {channel} 推送 {count} 篇论文。\n"
        "下次推送：<t:{ts}:F>（<t:{ts}:R>）。"
    ),
    TURNED_OFF: "每日摘要已关闭。设置已保留：运行 `/digest setup` 即可重新开启。",
    NOT_SET_UP: "本服务器还没有设置每日摘要：请先运行 `/digest setup`。",
    CANNOT_POST: "我无法在 {channel} 发帖：我在那里需要「{permissions}」权限。",
    POSTED: "已在 {channel} 推送 {count} 篇论文：{link}",
    POSTED_NOTHING_LEFT: "{channel} 的这期摘要没有论文（原因见帖子）：{link}",
    NOT_POSTED: "摘要未能推送：{reason}",
    PENDING: "Discord 没有响应，我稍后会重试：{reason}",
    PREVIEW_NOTE: "预览：只有你能看到。{where}",
    PREVIEW_WHERE: "下次推送 <t:{ts}:R>，在 {channel}，将通知 {people} 位订阅者。",
    PREVIEW_OFF: "每日摘要已关闭；运行 `/digest setup` 可开启。",
    PREVIEW_NO_SETUP: "尚未设置每日摘要；服务器管理员可以运行 `/digest setup`。",
    INVALID: "时间或时区无效：{error}",
    FAILURE: "⚠️ {failure}（<t:{ts}:f>）。请检查机器人的权限，或重新运行 `/digest setup`。",
    # /digest me and /digest history live in their own modules (mixins of this cog).
    **digest_me.ZH_CN,
    **digest_history.ZH_CN,
}


@app_commands.guild_only()
class Digest(
    PersonalDigestCommands,
    DigestHistoryCommands,
    commands.GroupCog,
    group_name="digest",
    group_description=locale_str(GROUP),
):
    def __init__(self, bot: PaperBot) -> None:
        self.bot = bot
        self.clock = utc_now
        super().__init__()

    @property
    def service(self) -> DigestService:
        return self.bot.app.digest

    def transport(self) -> DigestTransport:
        running = digest_scheduler.running(self.bot)
        if running is not None:
            return running.transport
        return digest_scheduler.DiscordTransport(self.bot)

    # --- /digest setup --------------------------------------------------------

    @app_commands.command(name="setup", description=locale_str(SETUP))
    @app_commands.describe(
        channel=locale_str(SETUP_CHANNEL),
        time=locale_str(SETUP_TIME),
        timezone=locale_str(SETUP_TIMEZONE),
        count=locale_str(SETUP_COUNT),
    )
    @app_commands.checks.has_permissions(manage_guild=True)
    async def setup(
        self,
        interaction: discord.Interaction[PaperBot],
        channel: discord.TextChannel,
        time: app_commands.Range[str, 1, 20],
        timezone: app_commands.Range[str, 1, 64] | None = None,
        count: app_commands.Range[int, 1, 10] | None = None,
    ) -> None:
        guild = _guild(interaction)
        self._check_bot_can_post(interaction, guild, channel)
        now = self.clock()
        try:
            async with thinking_when_slow(interaction):
                saved, next_post = await self.service.setup(
                    guild_id=guild.id,
                    channel_id=channel.id,
                    time_text=time,
                    timezone_text=timezone,
                    count=count,
                    user_id=interaction.user.id,
                    now=now,
                )
        except ScheduleError as exc:
            raise UserError(localize(interaction, INVALID, error=exc)) from None
        running = digest_scheduler.running(self.bot)
        if running is not None:
            running.schedule(saved)
        ts = int(next_post.timestamp())
        text = localize(
            interaction,
            SET_UP,
            count=saved.count,
            time=f"{saved.post_time:%H:%M}",
            timezone=saved.timezone,
            channel=channel.mention,
            ts=ts,
        )
        await self._reply(interaction, text)

    @setup.autocomplete("timezone")
    async def timezone_autocomplete(
        self, _interaction: discord.Interaction[PaperBot], current: str
    ) -> list[app_commands.Choice[str]]:
        names = suggest_timezones(current, known_timezones(), limit=25)
        if not current.strip():
            # The configured default comes first, as the config file promises.
            default = self.bot.app.settings.digest.default_timezone
            names = [default, *(n for n in names if n != default)][:25]
        return [app_commands.Choice(name=name, value=name) for name in names]

    def _check_bot_can_post(
        self,
        interaction: discord.Interaction[PaperBot],
        guild: discord.Guild,
        channel: discord.TextChannel,
    ) -> None:
        permissions = channel.permissions_for(guild.me)
        missing = [name for name in NEEDED if not getattr(permissions, name)]
        if missing:
            names = permission_names(interaction, missing)
            raise UserError(
                localize(interaction, CANNOT_POST, channel=channel.mention, permissions=names)
            )

    # --- /digest off ----------------------------------------------------------

    @app_commands.command(name="off", description=locale_str(OFF))
    @app_commands.checks.has_permissions(manage_guild=True)
    async def off(self, interaction: discord.Interaction[PaperBot]) -> None:
        guild = _guild(interaction)
        async with thinking_when_slow(interaction):
            switched_off = await self.service.off(guild.id, self.clock())
        if not switched_off:
            raise UserError(localize(interaction, NOT_SET_UP))
        running = digest_scheduler.running(self.bot)
        if running is not None:
            running.unschedule(guild.id)
        await self._reply(interaction, localize(interaction, TURNED_OFF))

    # --- /digest now ----------------------------------------------------------

    @app_commands.command(name="now", description=locale_str(NOW))
    @app_commands.checks.has_permissions(manage_guild=True)
    async def now(self, interaction: discord.Interaction[PaperBot]) -> None:
        guild = _guild(interaction)
        async with thinking_when_slow(interaction):
            configured = await self.service.get_settings(guild.id)
        if configured is None:
            raise UserError(localize(interaction, NOT_SET_UP))
        if not interaction.response.is_done():  # posting takes a while
            await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            result = await self.service.post_now(guild.id, self.transport(), self.clock())
        except DigestInputError:
            raise UserError(localize(interaction, NOT_SET_UP)) from None
        text = await self._now_text(interaction, result, configured.channel_id)
        await self._reply(interaction, text)

    async def _now_text(
        self, interaction: discord.Interaction[PaperBot], result: PostResult, channel_id: int
    ) -> str:
        channel = f"<#{channel_id}>"
        if result.outcome == "posted":
            guild_id = interaction.guild_id
            link = f"https://discord.com/channels/{guild_id}/{channel_id}/{result.message_id}"
            if result.papers == 0:
                return localize(interaction, POSTED_NOTHING_LEFT, channel=channel, link=link)
            return localize(interaction, POSTED, count=result.papers, channel=channel, link=link)
        if result.outcome == "pending":
            return localize(interaction, PENDING, reason=result.detail)
        # The admin is being told right now: the recorded failure is done with.
        await self.service.take_failure(interaction.guild_id or 0)
        return localize(interaction, NOT_POSTED, reason=result.detail or result.outcome)

    # --- /digest preview ------------------------------------------------------

    @app_commands.command(name="preview", description=locale_str(PREVIEW))
    async def preview(self, interaction: discord.Interaction[PaperBot]) -> None:
        guild = _guild(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        now = self.clock()
        preview = await self.service.preview(guild.id, now)
        configured = await self.service.get_settings(guild.id)
        if configured is None:
            where = localize(interaction, PREVIEW_NO_SETUP)
        elif not configured.enabled:
            where = localize(interaction, PREVIEW_OFF)
        else:
            next_post = await self.service.next_post(configured, now)
            where = localize(
                interaction,
                PREVIEW_WHERE,
                ts=int(next_post.timestamp()),
                channel=f"<#{configured.channel_id}>",
                people=len(preview.message.mention_user_ids),
            )
        header = preview.message.content.split("\n", 1)[0]
        # The preview pings nobody and does not list who would be pinged.
        shown = MessageData(
            content=f"{header}\n{localize(interaction, PREVIEW_NOTE, where=where)}"
            + _nothing_left_line(preview.message),
            embeds=preview.message.embeds,
        )
        await self._reply(interaction, shown)

    # --- every /digest command: tell admins about a failed post -----------------

    async def failure_notice(self, interaction: discord.Interaction[PaperBot]) -> str | None:
        """A recorded failure, for an admin (read once: cleared by telling)."""
        permissions = interaction.permissions
        if interaction.guild_id is None or not permissions.manage_guild:
            return None
        failure = await self.service.take_failure(interaction.guild_id)
        if failure is None:
            return None
        message, when = failure
        return localize(interaction, FAILURE, failure=message, ts=int(when.timestamp()))

    async def _reply(
        self, interaction: discord.Interaction[PaperBot], body: str | MessageData
    ) -> None:
        """An ephemeral answer (first response or follow-up), pinging nobody,
        headed by a failure notice for admins when one is waiting."""
        async with thinking_when_slow(interaction):
            notice = await self.failure_notice(interaction)
        message = body if isinstance(body, MessageData) else MessageData(content=body)
        content = f"{notice}\n\n{message.content}" if notice else message.content
        await reply(interaction, MessageData(content=content, embeds=message.embeds))


def _nothing_left_line(message: MessageData) -> str:
    lines = message.content.split("\n")
    return "\n" + lines[1] if not message.embeds and len(lines) > 1 else ""


def _guild(interaction: discord.Interaction[PaperBot]) -> discord.Guild:
    guild = interaction.guild
    if guild is None:
        raise app_commands.NoPrivateMessage()
    return guild


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(Digest(bot))
