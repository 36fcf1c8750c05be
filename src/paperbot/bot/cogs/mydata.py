"""`/mydata show|export|delete`, and what happens to a server that removes the bot.

A reader sees, downloads (JSON) or deletes what paperbot keeps about them in
this server (`services.user_data` lists every kind of it). When the bot is
removed from a server (the guild-remove event) the departure is recorded;
a re-join cancels it, and a daily job purges the data of servers gone for
longer than the grace period (30 days).
"""

from __future__ import annotations

import asyncio
import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands, tasks

from paperbot.bot.respond import guild_id_of, localize, reply, thinking_when_slow, translator
from paperbot.bot.views.confirm import ConfirmView
from paperbot.clock import utc_now
from paperbot.core.library_render import (
    CANCEL_BUTTON,
    CANCELLED,
    DELETE_BUTTON,
    DELETE_CONFIRM,
    DELETED,
    DELETED_NOTHING,
    MYDATA_EXPORTED,
    MYDATA_FOOTER,
    MYDATA_HEADER,
    MYDATA_NOTHING,
    NOT_YOUR_DATA,
    delete_prompt,
    deleted_summary,
    mydata_file,
    mydata_summary,
)

if TYPE_CHECKING:
    from paperbot.bot.client import PaperBot

log = logging.getLogger(__name__)

GROUP = "What paperbot stores about you in this server"
SHOW = "See what paperbot stores about you in this server"
EXPORT = "Download everything paperbot stores about you in this server (JSON)"
DELETE = "Delete everything paperbot stores about you in this server"
PURGE_EVERY_HOURS = 24

ZH_CN: dict[str, str] = {
    GROUP: "paperbot 在本服务器保存的关于你的数据",
    SHOW: "查看 paperbot 在本服务器保存的关于你的数据",
    EXPORT: "下载 paperbot 在本服务器保存的关于你的全部数据（JSON）",
    DELETE: "删除 paperbot 在本服务器保存的关于你的全部数据",
    "Topic subscriptions": "订阅的主题",
    "Saved papers": "收藏的论文",
    "Votes": "投票",
    "Mutes": "屏蔽",
    "Personal digest setting": "个人每日摘要设置",
    "Personal digests sent": "已发送的个人摘要",
    "Papers received by DM": "通过私信收到的论文",
    MYDATA_HEADER: "paperbot 在本服务器保存的关于你的数据：",
    MYDATA_NOTHING: "paperbot 在本服务器没有保存任何关于你的数据。",
    MYDATA_FOOTER: "`/mydata export` 可下载全部数据（JSON 文件）；`/mydata delete` 可全部删除。",
    MYDATA_EXPORTED: "paperbot 在本服务器保存的关于你的全部数据（JSON）。",
    DELETE_CONFIRM: "要删除 paperbot 在本服务器保存的关于你的全部数据吗？此操作无法撤销。",
    DELETE_BUTTON: "删除我的数据",
    CANCEL_BUTTON: "取消",
    DELETED: "已删除 paperbot 在本服务器保存的关于你的全部数据：",
    DELETED_NOTHING: "没有可删除的内容：paperbot 在这里没有保存关于你的数据。",
    CANCELLED: "没有删除任何内容。",
    NOT_YOUR_DATA: "只有发起请求的人才能确认。",
}


@app_commands.guild_only()
class MyData(commands.GroupCog, group_name="mydata", group_description=locale_str(GROUP)):
    def __init__(self, bot: PaperBot) -> None:
        self.bot = bot
        self.clock = utc_now
        super().__init__()

    async def cog_load(self) -> None:
        self.purge_departed.start()

    async def cog_unload(self) -> None:
        self.purge_departed.cancel()

    @app_commands.command(name="show", description=locale_str(SHOW))
    async def show(self, interaction: discord.Interaction[PaperBot]) -> None:
        service = self.bot.app.user_data
        async with thinking_when_slow(interaction):
            counts = await service.counts(guild_id_of(interaction), interaction.user.id)
        await reply(interaction, mydata_summary(service.labelled(counts), translator(interaction)))

    @app_commands.command(name="export", description=locale_str(EXPORT))
    async def export(self, interaction: discord.Interaction[PaperBot]) -> None:
        guild_id = guild_id_of(interaction)
        async with thinking_when_slow(interaction):
            data = await self.bot.app.user_data.export(guild_id, interaction.user.id)
            exported = await asyncio.to_thread(
                mydata_file, guild_id, interaction.user.id, data, self.clock()
            )
        attachment = discord.File(io.BytesIO(exported.data), filename=exported.filename)
        await reply(interaction, localize(interaction, MYDATA_EXPORTED), file=attachment)

    @app_commands.command(name="delete", description=locale_str(DELETE))
    async def delete(self, interaction: discord.Interaction[PaperBot]) -> None:
        guild_id = guild_id_of(interaction)
        user_id = interaction.user.id
        service = self.bot.app.user_data
        tr = translator(interaction)
        async with thinking_when_slow(interaction):
            counts = service.labelled(await service.counts(guild_id, user_id))
        if not any(count for _label, count in counts):
            await reply(interaction, tr(MYDATA_NOTHING))
            return

        async def forget(pressed: discord.Interaction[Any]) -> str:
            removed = await service.forget(guild_id, user_id)
            return deleted_summary(service.labelled(removed), translator(pressed))

        view = ConfirmView(
            owner_id=user_id,
            on_confirm=forget,
            confirm_label=tr(DELETE_BUTTON),
            cancel_label=tr(CANCEL_BUTTON),
            cancelled_text=tr(CANCELLED),
            not_yours_text=tr(NOT_YOUR_DATA),
        )
        view.interaction = interaction
        await reply(interaction, delete_prompt(counts, tr), view=view)

    # --- servers that remove the bot -------------------------------------------

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        await self.bot.app.user_data.guild_left(guild.id, self.clock())

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.bot.app.user_data.guild_joined(guild.id)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        # discord.py calls a GUILD_CREATE carrying `unavailable: false` "available",
        # not a join: either way the bot is in the server, so its data stays.
        await self.bot.app.user_data.guild_joined(guild.id)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        # Removed or re-invited while the bot was down: no event came for it.
        present = {guild.id for guild in self.bot.guilds}
        gone, back = await self.bot.app.user_data.reconcile(present, self.clock())
        if gone:
            log.warning(
                "%d servers with stored data no longer have the bot (removed while it was"
                " down, or another bot token?): their data is purged after 30 days unless"
                " the bot is back by then: %s",
                len(gone),
                sorted(gone),
            )
        if back:
            log.info("back in %d servers: their data is kept", len(back))

    @tasks.loop(hours=PURGE_EVERY_HOURS)
    async def purge_departed(self) -> None:
        try:
            purged = await self.bot.app.user_data.purge_departed(self.clock())
        except Exception:  # a failed purge is retried tomorrow; the bot keeps running
            log.exception("purging the data of departed servers failed")
            return
        if purged:
            log.info("purged the data of %d departed servers", len(purged))


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(MyData(bot))
