"""`/saved list` and `/saved export`: a reader's saved papers in this server.

Ephemeral: what a reader saved is theirs. The list pages like /search and
has an Unsave button per paper (`bot.views.saved`, alive across restarts);
the export answers with a file, never a wall of text. Rendering is pure
(`core.library_render`, `core.library_export`).
"""

from __future__ import annotations

import asyncio
import io
import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from paperbot.bot.errors import BAD_TEXT, UserError
from paperbot.bot.respond import guild_id_of, localize, reply, thinking_when_slow, translator
from paperbot.bot.views.paginator import NEXT, PREVIOUS
from paperbot.bot.views.saved import SavedPaginator, UnsaveButton
from paperbot.clock import utc_now
from paperbot.core.library_export import EXPORT_FORMATS, ExportFormat, export_saved
from paperbot.core.library_render import (
    EXPORTED,
    NO_SAVED,
    NOT_SAVED,
    NOT_YOUR_LIST,
    NOTHING_TO_EXPORT,
    SAVED_HEADER,
    UNSAVE_LABEL,
    UNSAVED,
    SavedPages,
)

if TYPE_CHECKING:
    from paperbot.bot.client import PaperBot

log = logging.getLogger(__name__)

GROUP = "Your saved papers (🔖) in this server"
LIST = "List your saved papers, newest first, with an Unsave button for each"
EXPORT = "Download your saved papers as a file (BibTeX for Zotero, Markdown, CSV or JSON)"
EXPORT_FORMAT = "The file format: bibtex (Zotero, JabRef, LaTeX), markdown, csv or json"
CHOICE_NAMES: dict[ExportFormat, str] = {
    "bibtex": "BibTeX (Zotero, JabRef, LaTeX)",
    "markdown": "Markdown (notes)",
    "csv": "CSV (spreadsheets)",
    "json": "JSON (scripts)",
}
FORMAT_NAMES: dict[ExportFormat, str] = {
    "bibtex": "BibTeX",
    "markdown": "Markdown",
    "csv": "CSV",
    "json": "JSON",
}

ZH_CN: dict[str, str] = {
    GROUP: "你在本服务器收藏的论文（🔖）",
    LIST: "列出你收藏的论文，最新的在前，每篇都有取消收藏按钮",
    EXPORT: "把你收藏的论文下载为文件（Zotero 用的 BibTeX、Markdown、CSV 或 JSON）",
    EXPORT_FORMAT: "文件格式：bibtex（Zotero、JabRef、LaTeX）、markdown、csv 或 json",
    CHOICE_NAMES["bibtex"]: "BibTeX（Zotero、JabRef、LaTeX）",
    CHOICE_NAMES["markdown"]: "Markdown（笔记）",
    CHOICE_NAMES["csv"]: "CSV（电子表格）",
    CHOICE_NAMES["json"]: "JSON（脚本）",
    SAVED_HEADER: "🔖 你在本服务器收藏的论文：{count} 篇 · 第 {page}/{pages} 页",
    NO_SAVED: "你在本服务器还没有收藏论文：在每日摘要或搜索结果下点 🔖 收藏即可。",
    UNSAVE_LABEL: "取消收藏 {number}",
    UNSAVED: "已从收藏中移除 **{title}**。",
    NOT_SAVED: "这篇论文已经不在你的收藏里了。",
    EXPORTED: "🔖 你收藏的 {count} 篇论文，{format} 格式。",
    NOTHING_TO_EXPORT: "你在本服务器没有可导出的收藏论文。",
    PREVIOUS: "上一页",
    NEXT: "下一页",
    NOT_YOUR_LIST: "这是别人的收藏列表：/saved list 可查看你自己的。",
}


@app_commands.guild_only()
class Saved(commands.GroupCog, group_name="saved", group_description=locale_str(GROUP)):
    def __init__(self, bot: PaperBot) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        # Unsave buttons of every list ever sent, before and after a restart.
        self.bot.add_dynamic_items(UnsaveButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(UnsaveButton)

    @app_commands.command(name="list", description=locale_str(LIST))
    async def list_saved(self, interaction: discord.Interaction[PaperBot]) -> None:
        guild_id = guild_id_of(interaction)
        async with thinking_when_slow(interaction):
            saved = await self.bot.app.library.saved_papers(guild_id, interaction.user.id)
        if not saved:
            await reply(interaction, localize(interaction, NO_SAVED))
            return
        tr = translator(interaction)
        pages = SavedPages(saved, tr=tr)
        view = SavedPaginator(pages, guild_id=guild_id, owner_id=interaction.user.id, tr=tr)
        await view.start(interaction, ephemeral=True)

    @app_commands.command(name="export", description=locale_str(EXPORT))
    @app_commands.describe(fmt=locale_str(EXPORT_FORMAT))
    @app_commands.rename(fmt="format")
    @app_commands.choices(
        fmt=[
            app_commands.Choice(name=locale_str(name), value=value)
            for value, name in CHOICE_NAMES.items()
        ]
    )
    async def export(self, interaction: discord.Interaction[PaperBot], fmt: str = "bibtex") -> None:
        guild_id = guild_id_of(interaction)
        # Discord sends only the choices; the lookup also gives fmt its Literal type.
        chosen = next((f for f in EXPORT_FORMATS if f == fmt), None)
        if chosen is None:
            raise UserError(localize(interaction, BAD_TEXT, value=fmt))
        async with thinking_when_slow(interaction):
            saved = await self.bot.app.library.saved_papers(guild_id, interaction.user.id)
            # Thousands of papers take a while to render: off the event loop.
            exported = (
                await asyncio.to_thread(export_saved, saved, chosen, utc_now().date())
                if saved
                else None
            )
        if exported is None:
            await reply(interaction, localize(interaction, NOTHING_TO_EXPORT))
            return
        text = localize(interaction, EXPORTED, count=len(saved), format=FORMAT_NAMES[chosen])
        attachment = discord.File(io.BytesIO(exported.data), filename=exported.filename)
        await reply(interaction, text, file=attachment)


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(Saved(bot))
