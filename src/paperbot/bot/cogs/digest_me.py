"""`/digest me time:<HH:MM|off> [timezone]`: the reader's own daily digest by DM.

A mixin of the `/digest` group cog (`bot.cogs.digest.Digest`), so the
subcommand sits in the same group. Discord cannot have both `/digest me`
with options and a `/digest me off` subcommand, so `time:off` (offered by
autocomplete) switches it off.

It also tells a reader, after their next command, that the bot switched
their personal digest off because their DMs are closed (Discord 50007).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from paperbot.bot import personal_scheduler
from paperbot.bot.errors import UserError
from paperbot.bot.respond import localize, reply, thinking_when_slow
from paperbot.core.schedule import ScheduleError, suggest_timezones
from paperbot.services.digest import known_timezones
from paperbot.services.personal_digest import DMS_CLOSED_NOTICE, PersonalDigestService

if TYPE_CHECKING:
    from paperbot.bot.client import PaperBot

log = logging.getLogger(__name__)

OFF_WORDS = frozenset({"off", "stop", "none", "关", "关闭", "停止"})
TIME_CHOICES = ("off", "07:30", "08:00", "09:00", "12:00", "18:00", "21:00")

ME = "Get your own daily digest by DM (your topics from every server), or time:off"
ME_TIME = "Time of day, HH:MM on a 24-hour clock (e.g. 08:30), or off"
ME_TIMEZONE = "Your IANA timezone, e.g. Asia/Shanghai (default from the bot's settings)"
ME_SET = (
    "Your personal digest: {count} papers a day by DM at {time} ({timezone}), picked for the"
    " {topics} topics you follow across your servers; a paper you already got is never sent"
    " again.\nNext DM: <t:{ts}:F> (<t:{ts}:R>). `/digest me time:off` stops it."
)
ME_NO_TOPICS = "You follow no topics yet: `/subscribe` to some, or the DM brings the newest papers."
ME_OFF = "Your personal digest is off. `/digest me time:09:00` turns it back on."
ME_WAS_OFF = "You had no personal digest switched on."
ME_INVALID = "{error}"
ME_DMS_CLOSED = DMS_CLOSED_NOTICE

ZH_CN: dict[str, str] = {
    ME: "每天私信给你一份自己的论文摘要（你在所有服务器关注的主题），或 time:off 关闭",
    ME_TIME: "每天的时间，24 小时制 HH:MM（例如 08:30），或 off",
    ME_TIMEZONE: "你的 IANA 时区，例如 Asia/Shanghai（默认取机器人设置）",
    ME_SET: (
        "你的个人摘要：每天 {time}（{timezone}）私信推送 {count} 篇论文，按你在各服务器关注的"
        " {topics} 个主题挑选；已经收到过的论文不会再发。\n下次私信：<t:{ts}:F>（<t:{ts}:R>）。"
        "`/digest me time:off` 可关闭。"
    ),
    ME_NO_TOPICS: "你还没有关注任何主题：先用 `/subscribe` 关注一些，否则私信只会推送最新论文。",
    ME_OFF: "你的个人摘要已关闭。运行 `/digest me time:09:00` 可重新开启。",
    ME_WAS_OFF: "你没有开启个人摘要。",
    ME_INVALID: "时间或时区无效：{error}",
    ME_DMS_CLOSED: (
        "你的个人摘要已关闭：Discord 不允许我给你发私信（你关闭了私信）。"
        "请允许本服务器成员给你发私信，然后重新运行 `/digest me`。"
    ),
}


class PersonalDigestCommands(commands.Cog):
    """`/digest me` for the `/digest` group cog (see the module docstring)."""

    bot: PaperBot
    clock: Callable[[], datetime]

    @property
    def personal(self) -> PersonalDigestService:
        return self.bot.app.personal

    @app_commands.command(name="me", description=locale_str(ME))
    @app_commands.describe(time=locale_str(ME_TIME), timezone=locale_str(ME_TIMEZONE))
    async def me(
        self,
        interaction: discord.Interaction[PaperBot],
        time: app_commands.Range[str, 1, 20],
        timezone: app_commands.Range[str, 1, 64] | None = None,
    ) -> None:
        user_id = interaction.user.id
        jobs = personal_scheduler.running(self.bot)
        if time.strip().casefold() in OFF_WORDS:
            async with thinking_when_slow(interaction):
                switched = await self.personal.off(user_id, self.clock())
            if jobs is not None:
                jobs.unschedule(user_id)
            await reply(interaction, localize(interaction, ME_OFF if switched else ME_WAS_OFF))
            return
        try:
            async with thinking_when_slow(interaction):
                saved, next_post = await self.personal.set_time(
                    user_id=user_id,
                    guild_id=interaction.guild_id,
                    time_text=time,
                    timezone_text=timezone,
                    now=self.clock(),
                )
                topics = len(await self.bot.app.subscriptions.user_demands(user_id))
        except ScheduleError as exc:
            raise UserError(localize(interaction, ME_INVALID, error=exc)) from None
        if jobs is not None:
            jobs.schedule(saved)
        ts = int(next_post.timestamp())
        text = localize(
            interaction,
            ME_SET,
            count=saved.count,
            time=f"{saved.post_time:%H:%M}",
            timezone=saved.timezone,
            topics=topics,
            ts=ts,
        )
        if topics == 0:
            text += "\n" + localize(interaction, ME_NO_TOPICS)
        await reply(interaction, text)

    @me.autocomplete("time")
    async def me_time_autocomplete(
        self, _interaction: discord.Interaction[PaperBot], current: str
    ) -> list[app_commands.Choice[str]]:
        typed = current.strip()
        names = [c for c in TIME_CHOICES if c.startswith(typed.casefold())] or [typed]
        return [app_commands.Choice(name=n, value=n) for n in names if n][:25]

    @me.autocomplete("timezone")
    async def me_timezone_autocomplete(
        self, _interaction: discord.Interaction[PaperBot], current: str
    ) -> list[app_commands.Choice[str]]:
        names = suggest_timezones(current, known_timezones(), limit=25)
        return [app_commands.Choice(name=name, value=name) for name in names]

    # --- the closed-DMs notice, after the reader's next command ----------------

    @commands.Cog.listener()
    async def on_app_command_completion(
        self, interaction: discord.Interaction[PaperBot], _command: object
    ) -> None:
        """Tell a reader once that their DMs being closed switched the
        personal digest off: an ephemeral follow-up to whatever command they
        used (the notice is cleared only once it was sent)."""
        notice = await self.personal.pending_notice(interaction.user.id)
        if notice is None:
            return
        try:
            await reply(interaction, localize(interaction, ME_DMS_CLOSED))
        except discord.HTTPException as exc:
            log.info("could not tell user %d about closed DMs: %s", interaction.user.id, exc)
            return
        await self.personal.notice_told(interaction.user.id, notice)
