"""`/digest history [date]`: this server's past digests, newest first, paged.

A mixin of the `/digest` group cog (`bot.cogs.digest.Digest`). Anyone in
the server may read it; the answer is ephemeral and pings nobody.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from paperbot.bot.errors import UserError
from paperbot.bot.respond import guild_id_of, localize, reply, thinking_when_slow, translator
from paperbot.bot.views.paginator import Paginator
from paperbot.core import digest_history as render

if TYPE_CHECKING:
    from paperbot.bot.client import PaperBot

HISTORY = "Show this server's past digests, newest first"
HISTORY_DATE = "Start from this date, YYYY-MM-DD (e.g. 2026-11-30)"
NO_HISTORY = "No digest has been posted in this server yet."
NO_HISTORY_UNTIL = "No digest was posted in this server on or before {date}."
BAD_DATE = "`{text}` is not a date: use YYYY-MM-DD, e.g. `2026-11-30`."

ZH_CN: dict[str, str] = {
    HISTORY: "查看本服务器以往的摘要，最新的在前",
    HISTORY_DATE: "从这一天开始往前看，YYYY-MM-DD（例如 2026-11-30）",
    NO_HISTORY: "本服务器还没有推送过摘要。",
    NO_HISTORY_UNTIL: "本服务器在 {date} 及之前没有推送过摘要。",
    BAD_DATE: "`{text}` 不是日期：请用 YYYY-MM-DD，例如 `2026-11-30`。",
    render.DAILY: "每日摘要",
    render.EXTRA: "加推摘要",
    render.JUMP: "跳转到原帖",
    render.PAGE_HEAD: "本服务器以往的摘要，最新的在前。",
    render.PAGE_HEAD_UNTIL: "本服务器 {date} 及之前的摘要，最新的在前。",
    render.NO_PICKS: "*没有论文（所有论文都已推送过）。*",
}


class DigestHistoryCommands(commands.Cog):
    """`/digest history` for the `/digest` group cog."""

    bot: PaperBot

    @app_commands.command(name="history", description=locale_str(HISTORY))
    @app_commands.describe(date=locale_str(HISTORY_DATE))
    async def history(
        self,
        interaction: discord.Interaction[PaperBot],
        date: app_commands.Range[str, 1, 20] | None = None,
    ) -> None:
        guild_id = guild_id_of(interaction)
        until = None
        if date is not None:
            until = render.parse_date(date)
            if until is None:
                raise UserError(localize(interaction, BAD_DATE, text=date.strip()[:20]))
        async with thinking_when_slow(interaction):
            posts = await self.bot.app.archive.history(guild_id, until=until)
        if not posts:
            text = (
                localize(interaction, NO_HISTORY_UNTIL, date=until.isoformat())
                if until
                else localize(interaction, NO_HISTORY)
            )
            await reply(interaction, text)
            return
        tr = translator(interaction)
        pages = render.history_pages(posts, until, tr)
        await Paginator(pages, owner_id=interaction.user.id, tr=tr).start(
            interaction, ephemeral=True
        )
