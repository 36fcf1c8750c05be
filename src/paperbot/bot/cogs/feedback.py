"""`/similar`, `/mute`, `/unmute`, `/feedback show|reset`, and the reader
buttons (👍 👎 🔖 More like this) under digest picks and search results.

The buttons are `bot.views.reader_actions` dynamic items, registered here
at start-up so presses on old messages keep working after a restart. Every
answer is ephemeral. A server-level mute (`scope: server`) needs Manage
Server, checked here (the commands themselves are for everyone).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from paperbot.bot.cogs.subscriptions import render_mutes, to_app_choices, topic_text
from paperbot.bot.errors import UserError
from paperbot.bot.respond import guild_id_of, localize, reply, thinking_when_slow, translator
from paperbot.bot.suggest import Suggestions
from paperbot.bot.views import reader_actions as actions
from paperbot.clock import utc_now
from paperbot.core import similar_render as similar_texts
from paperbot.core.render import EmbedData, MessageData, Translate, defuse_mentions
from paperbot.core.topics import TopicInputError
from paperbot.services.feedback import SERVER, FeedbackSummary

if TYPE_CHECKING:
    from paperbot.bot.client import PaperBot

log = logging.getLogger(__name__)

COLOR = 0x8B5CF6
SIMILAR = "Papers most like one paper (shared topics say why)"
SIMILAR_PAPER = "A paper title (pick from the list) or its id"
MUTE = "Never get papers on a topic or keyword (you, or the whole server)"
MUTE_TOPIC = "A topic such as reinforcement learning or 强化学习, or any keyword"
MUTE_SCOPE = "Just you (default), or the whole server's digest (Manage Server)"
UNMUTE = "Get papers on a muted topic again"
UNMUTE_TOPIC = "One of the muted topics"
GROUP = "What your 👍/👎 votes taught the bot"
SHOW = "Show your votes and what your profile leans towards and away from"
RESET = "Forget all your 👍/👎 votes in this server"

NOT_FOUND = "No loaded paper matches **{text}**: pick one from the list, or try its title."
MUTED = "Muted **{topic}**: its papers are never picked for you and you are not pinged for them."
MUTED_SERVER = "Muted **{topic}** for the whole server: its papers leave the server's digest."
ALREADY_MUTED = "**{topic}** was already muted."
UNMUTED = "Unmuted **{topic}**."
NOT_MUTED = "**{topic}** is not muted; /subscriptions lists the mutes."
NEEDS_MANAGE = "Muting for the whole server needs the Manage Server permission."
PROFILE_TITLE = "Your reading profile here"
VOTES_LINE = "{likes} 👍 · {dislikes} 👎"
MODEL_NONE = "No votes yet: press 👍 or 👎 under a digest pick or a search result."
MODEL_ROCCHIO = "Ranking: papers like your 👍 up, like your 👎 down (centroids)."
MODEL_LOGISTIC = "Ranking: a classifier trained on your 👍 and 👎."
TOWARDS = "Leans towards"
AWAY = "Leans away from"
NOTHING_YET = "nothing yet"
RESET_DONE = "Forgot your {count} votes here; your picks are back to your topics alone."
RESET_NONE = "You have no votes here to forget."
SCOPE_ME = "just me"
SCOPE_SERVER = "the whole server (Manage Server)"

ZH_CN: dict[str, str] = {
    SIMILAR: "与某篇论文最相似的论文（注明共同主题）",
    SIMILAR_PAPER: "论文标题（从列表中选择）或编号",
    MUTE: "不再推送某个主题或关键词的论文（你自己，或整个服务器）",
    MUTE_TOPIC: "主题，例如 reinforcement learning 或 强化学习，或任意关键词",
    MUTE_SCOPE: "只对你（默认），或整个服务器的摘要（需要管理服务器权限）",
    UNMUTE: "恢复推送已屏蔽的主题",
    UNMUTE_TOPIC: "一个已屏蔽的主题",
    GROUP: "你的 👍/👎 教会了机器人什么",
    SHOW: "查看你的投票，以及你的偏好倾向",
    RESET: "清除你在本服务器的全部 👍/👎",
    NOT_FOUND: "没有找到与 **{text}** 对应的论文：请从列表中选择，或输入标题。",
    MUTED: "已屏蔽 **{topic}**：不会再为你挑选这类论文，也不会因此提及你。",
    MUTED_SERVER: "已为整个服务器屏蔽 **{topic}**：这类论文不再出现在服务器摘要中。",
    ALREADY_MUTED: "**{topic}** 已经屏蔽过了。",
    UNMUTED: "已取消屏蔽 **{topic}**。",
    NOT_MUTED: "**{topic}** 没有被屏蔽；/subscriptions 会列出屏蔽项。",
    NEEDS_MANAGE: "为整个服务器屏蔽需要「管理服务器」权限。",
    PROFILE_TITLE: "你在本服务器的阅读偏好",
    VOTES_LINE: "{likes} 👍 · {dislikes} 👎",
    MODEL_NONE: "还没有投票：在摘要或搜索结果下点 👍 或 👎。",
    MODEL_ROCCHIO: "排序：与你点赞的相似的论文靠前，与你点踩的相似的靠后（质心）。",
    MODEL_LOGISTIC: "排序：用你的 👍 和 👎 训练的分类器。",
    TOWARDS: "偏向",
    AWAY: "远离",
    NOTHING_YET: "暂无",
    RESET_DONE: "已清除你在这里的 {count} 次投票；推荐回到只按主题挑选。",
    RESET_NONE: "你在这里没有可清除的投票。",
    actions.LIKED: "已记下：以后多推荐类似论文。👍",
    actions.DISLIKED: "已记下：以后少推荐类似论文，这篇不会再推给你。👎",
    actions.UNVOTED: "已撤销你对这篇论文的投票。",
    actions.SAVED: "已收藏 🔖（查看收藏：/saved）。",
    actions.UNSAVED: "已从收藏中移除。",
    actions.GONE: "这篇论文已不在库中。",
    similar_texts.SIMILAR_HEADER: "🔎 与 **{title}** 相似的论文",
    similar_texts.SHARED: "共同主题：{topics}",
    similar_texts.WORDING: "标题和摘要用词相近",
    similar_texts.NOTHING_SIMILAR: "没有与 **{title}** 相近的其他论文。",
    SCOPE_ME: "只对我",
    SCOPE_SERVER: "整个服务器（需要管理服务器权限）",
}

SCOPES = [
    app_commands.Choice(name=locale_str(SCOPE_ME), value="me"),
    app_commands.Choice(name=locale_str(SCOPE_SERVER), value="server"),
]


def render_summary(summary: FeedbackSummary, tr: Translate) -> MessageData:
    model = {"rocchio": MODEL_ROCCHIO, "logistic": MODEL_LOGISTIC}.get(summary.model, MODEL_NONE)
    fields_text = [
        f"{tr(VOTES_LINE).format(likes=summary.likes, dislikes=summary.dislikes)}",
        tr(model),
        f"**{tr(TOWARDS)}:** {', '.join(summary.towards) or tr(NOTHING_YET)}",
        f"**{tr(AWAY)}:** {', '.join(summary.away) or tr(NOTHING_YET)}",
    ]
    embeds = [EmbedData(title=tr(PROFILE_TITLE), description="\n".join(fields_text), color=COLOR)]
    mutes = render_mutes(summary.mutes, tr)
    if mutes is not None:
        embeds.append(mutes)
    return MessageData(embeds=tuple(embeds))


class Feedback(commands.Cog):
    # /feedback show|reset; /similar, /mute and /unmute stay top-level.
    profile = app_commands.Group(name="feedback", description=locale_str(GROUP), guild_only=True)

    def __init__(self, bot: PaperBot) -> None:
        self.bot = bot
        self._suggestions = Suggestions()

    # --- /similar ----------------------------------------------------------------

    @app_commands.command(name="similar", description=locale_str(SIMILAR))
    @app_commands.describe(paper=locale_str(SIMILAR_PAPER))
    async def similar(
        self, interaction: discord.Interaction[PaperBot], paper: app_commands.Range[str, 1, 300]
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await self.bot.app.feedback.find_paper(paper)
        message = await actions.similar_message(interaction, found.id) if found else None
        if message is None:
            raise UserError(localize(interaction, NOT_FOUND, text=defuse_mentions(paper[:100])))
        await actions.send_with_actions(interaction, message)

    @similar.autocomplete("paper")
    async def similar_autocomplete(
        self, interaction: discord.Interaction[PaperBot], current: str
    ) -> list[app_commands.Choice[str]]:
        lookup = self.bot.app.feedback.suggest_papers(current)  # a search per keystroke
        return to_app_choices(await self._suggestions.latest(interaction, lookup) or [])

    # --- /mute, /unmute ------------------------------------------------------------

    @app_commands.command(name="mute", description=locale_str(MUTE))
    @app_commands.guild_only()
    @app_commands.describe(topic=locale_str(MUTE_TOPIC), scope=locale_str(MUTE_SCOPE))
    @app_commands.choices(scope=SCOPES)
    async def mute(
        self,
        interaction: discord.Interaction[PaperBot],
        topic: app_commands.Range[str, 1, 200],
        scope: str = "me",
    ) -> None:
        owner = self._scope_owner(interaction, scope)
        try:
            guild_id = guild_id_of(interaction)
            async with thinking_when_slow(interaction):
                muted = await self.bot.app.feedback.mute(guild_id, owner, topic, utc_now())
        except TopicInputError as exc:
            raise UserError(localize(interaction, exc.template, **exc.values)) from None
        name = topic_text(muted.topic, translator(interaction))
        text = (MUTED_SERVER if owner == SERVER else MUTED) if muted.changed else ALREADY_MUTED
        await reply(interaction, localize(interaction, text, topic=name))

    @mute.autocomplete("topic")
    async def mute_autocomplete(
        self, _interaction: discord.Interaction[PaperBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return to_app_choices(self.bot.app.topics.suggest(current))

    @app_commands.command(name="unmute", description=locale_str(UNMUTE))
    @app_commands.guild_only()
    @app_commands.describe(topic=locale_str(UNMUTE_TOPIC), scope=locale_str(MUTE_SCOPE))
    @app_commands.choices(scope=SCOPES)
    async def unmute(
        self,
        interaction: discord.Interaction[PaperBot],
        topic: app_commands.Range[str, 1, 200],
        scope: str = "me",
    ) -> None:
        owner = self._scope_owner(interaction, scope)
        try:
            async with thinking_when_slow(interaction):
                result = await self.bot.app.feedback.unmute(guild_id_of(interaction), owner, topic)
        except TopicInputError as exc:
            raise UserError(localize(interaction, exc.template, **exc.values)) from None
        name = topic_text(result.topic, translator(interaction))
        await reply(
            interaction, localize(interaction, UNMUTED if result.changed else NOT_MUTED, topic=name)
        )

    @unmute.autocomplete("topic")
    async def unmute_autocomplete(
        self, interaction: discord.Interaction[PaperBot], current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None:
            return []
        scope = getattr(interaction.namespace, "scope", "me")
        owner = SERVER if scope == "server" else interaction.user.id
        lookup = self.bot.app.feedback.suggest_muted(interaction.guild_id, owner, current)
        return to_app_choices(await self._suggestions.latest(interaction, lookup) or [])

    @staticmethod
    def _scope_owner(interaction: discord.Interaction[PaperBot], scope: str) -> int:
        if scope != "server":
            return interaction.user.id
        if not interaction.permissions.manage_guild:
            raise UserError(localize(interaction, NEEDS_MANAGE))
        return SERVER

    # --- /feedback show, /feedback reset ---------------------------------------------

    @profile.command(name="show", description=locale_str(SHOW))
    async def show(self, interaction: discord.Interaction[PaperBot]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        corpus = await self.bot.app.digest.corpus_arrays()
        summary = await self.bot.app.feedback.summary(
            guild_id_of(interaction), interaction.user.id, corpus
        )
        await reply(interaction, render_summary(summary, translator(interaction)))

    @profile.command(name="reset", description=locale_str(RESET))
    async def reset(self, interaction: discord.Interaction[PaperBot]) -> None:
        async with thinking_when_slow(interaction):
            count = await self.bot.app.feedback.reset(guild_id_of(interaction), interaction.user.id)
        text = (
            localize(interaction, RESET_DONE, count=count)
            if count
            else localize(interaction, RESET_NONE)
        )
        await reply(interaction, text)


async def setup(bot: PaperBot) -> None:
    # Presses on any message carrying reader components, old ones included.
    bot.add_dynamic_items(actions.ReaderButton, actions.ReaderSelect)
    await bot.add_cog(Feedback(bot))
