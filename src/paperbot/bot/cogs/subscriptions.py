"""`/subscribe`, `/unsubscribe`, `/subscriptions`: per-user topics in each server.

Everything is ephemeral: a user's topics are theirs, in this server only.
Rendering is pure (`render_*` return `MessageData`); the cog only gathers
data through `bot.app.subscriptions` and sends.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from paperbot.bot.errors import UserError
from paperbot.bot.respond import guild_id_of, localize, reply, thinking_when_slow, translator
from paperbot.bot.suggest import Suggestions
from paperbot.bot.views.offers import OffersView
from paperbot.bot.warmup import WarmUp
from paperbot.clock import utc_now
from paperbot.core import limits
from paperbot.core.profile import Mute
from paperbot.core.render import EmbedData, MessageData, Translate, defuse_mentions, trim
from paperbot.core.topics import (
    EMPTY_TOPIC,
    NO_LETTERS,
    ONLY_COMMON_WORDS,
    TOPIC_TOO_LONG,
    Choice,
    Topic,
    TopicInputError,
)
from paperbot.services.feedback import SERVER
from paperbot.services.subscriptions import (
    MAX_PER_USER,
    Followed,
    Subscribed,
    SubscriptionLimitError,
    Unsubscribed,
)

if TYPE_CHECKING:
    from paperbot.bot.client import PaperBot

log = logging.getLogger(__name__)

COLOR = 0x2B9348
EXAMPLES_SHOWN = 3

SUBSCRIBE_DESCRIPTION = "Follow a topic (or any keyword) for this server's daily digest"
SUBSCRIBE_TOPIC = "A topic such as scaling laws or 缩放定律, or any keyword"
UNSUBSCRIBE_DESCRIPTION = "Stop following one of your topics in this server"
UNSUBSCRIBE_TOPIC = "One of the topics you follow here"
SUBSCRIPTIONS_DESCRIPTION = "Your topics in this server and how many papers match each"

KEYWORD = "keyword"
SUBSCRIBED = "Subscribed to **{topic}**."
SWITCHED = "Now following **{topic}** in place of {old}."
INSTEAD_BUTTON = "Follow {topic} instead"
NOT_YOUR_OFFER = "These buttons are for the reader who used /subscribe."
ALREADY = "You already follow **{topic}** in this server."
MATCHES = "{count} papers match it now."
NO_MATCHES = "No paper matches it yet; the digest will pick it up when one does."
NO_MATCHES_CLOSE = (
    "No paper matches it yet; until one does, the digest offers papers on {topics} as close to it."
)
KEYWORD_NOTE = "A keyword matches papers whose title or summary contains it."
FOLLOWING = "You follow {total} of {limit} topics here; /subscriptions lists them."
EXAMPLES = "Best matches now:"
LIMIT = (
    "You already follow {limit} topics in this server, the most allowed: "
    "drop one with /unsubscribe first."
)
UNSUBSCRIBED = "Unsubscribed from **{topic}**."
NOT_FOLLOWED = "You don't follow **{topic}** in this server; /subscriptions lists what you follow."
NONE_YET = (
    "You don't follow any topics in this server yet. "
    "Try /subscribe with a topic such as scaling laws or 缩放定律."
)
YOUR_TOPICS = "Your topics in this server"
LIST_FOOTER = "{total} of {limit} topics · /subscribe to add, /unsubscribe to drop"
PAPERS_COUNT = "{count} papers"
RETIRED = "no longer in the topic list: /unsubscribe it"
YOUR_MUTES = "Muted (/unmute to undo)"
MUTE_YOU = "you"
MUTE_SERVER = "whole server"
MUTE_COLOR = 0x8B5CF6

ZH_CN: dict[str, str] = {
    YOUR_MUTES: "已屏蔽（/unmute 可取消）",
    MUTE_YOU: "你",
    MUTE_SERVER: "整个服务器",
    SUBSCRIBE_DESCRIPTION: "订阅一个主题（或任意关键词），用于本服务器的每日摘要",
    SUBSCRIBE_TOPIC: "主题，例如 scaling laws 或 缩放定律，也可以是任意关键词",
    UNSUBSCRIBE_DESCRIPTION: "取消订阅你在本服务器关注的某个主题",
    UNSUBSCRIBE_TOPIC: "你在本服务器关注的主题之一",
    SUBSCRIPTIONS_DESCRIPTION: "你在本服务器关注的主题，以及各自匹配的论文数",
    KEYWORD: "关键词",
    SUBSCRIBED: "已订阅 **{topic}**。",
    SWITCHED: "已改为关注 **{topic}**，取代 {old}。",
    INSTEAD_BUTTON: "改为关注 {topic}",
    NOT_YOUR_OFFER: "这些按钮只供使用 /subscribe 的人使用。",
    ALREADY: "你已经在本服务器订阅了 **{topic}**。",
    MATCHES: "目前有 {count} 篇论文与之匹配。",
    NO_MATCHES: "目前还没有匹配的论文；一旦出现，每日摘要会推送给你。",
    NO_MATCHES_CLOSE: "目前还没有匹配的论文；在此之前，每日摘要会把 {topics} 的论文作为相近推荐。",
    KEYWORD_NOTE: "关键词会匹配标题或摘要中包含它的论文。",
    FOLLOWING: "你在本服务器关注了 {total}/{limit} 个主题；/subscriptions 可查看全部。",
    EXAMPLES: "当前最匹配的论文：",
    LIMIT: "你在本服务器已关注 {limit} 个主题，已达上限：请先用 /unsubscribe 取消一个。",
    UNSUBSCRIBED: "已取消订阅 **{topic}**。",
    NOT_FOLLOWED: "你在本服务器没有订阅 **{topic}**；/subscriptions 可查看你关注的主题。",
    NONE_YET: "你在本服务器还没有关注任何主题。试试 /subscribe，例如 scaling laws 或 缩放定律。",
    YOUR_TOPICS: "你在本服务器关注的主题",
    LIST_FOOTER: "{total}/{limit} 个主题 · /subscribe 添加，/unsubscribe 取消",
    PAPERS_COUNT: "{count} 篇论文",
    RETIRED: "已不在主题列表中：请 /unsubscribe",
    EMPTY_TOPIC: "请输入一个主题，例如“scaling laws”或“缩放定律”。",
    TOPIC_TOO_LONG: "主题最多 {limit} 个字符；你输入了 {length} 个。",
    NO_LETTERS: "主题至少需要包含一个字母或汉字。",
    ONLY_COMMON_WORDS: (
        "这个主题只有常见词（the、of、的 等），每篇论文都有：请写一个具体主题，"
        "例如“scaling laws”或“缩放定律”。"
    ),
}


@dataclass(frozen=True, slots=True)
class Example:
    """A matching paper shown after /subscribe, with why it matches."""

    title: str
    why: tuple[str, ...]


def topic_text(topic: Topic, tr: Translate) -> str:
    """A topic for a message: both names, or the keyword quoted (user text made inert)."""
    if not topic.is_keyword:
        return topic.label
    keyword = defuse_mentions(discord.utils.escape_markdown(topic.name))
    return f"“{keyword}” ({tr(KEYWORD)})"


def render_subscribed(
    result: Subscribed,
    examples: Sequence[Example],
    tr: Translate,
    *,
    in_place_of: Topic | None = None,
) -> MessageData:
    """The answer to /subscribe; with `in_place_of`, to a press of one of
    its "follow … instead" buttons."""
    name = topic_text(result.topic, tr)
    if in_place_of is not None:
        first = tr(SWITCHED).format(topic=name, old=topic_text(in_place_of, tr))
    else:
        first = tr(SUBSCRIBED if result.created else ALREADY).format(topic=name)
    lines = [first]
    count = result.match_count
    lines.append(tr(MATCHES).format(count=count) if count else _no_matches(result, tr))
    if result.topic.is_keyword:
        lines.append(tr(KEYWORD_NOTE))
    lines.append(tr(FOLLOWING).format(total=result.total, limit=MAX_PER_USER))
    if examples:
        lines.append("")
        lines.append(tr(EXAMPLES))
        for example in examples:
            title = defuse_mentions(discord.utils.escape_markdown(trim(example.title, 120)))
            why = trim("; ".join(example.why), 120)
            lines.append(f"• {title} ({defuse_mentions(discord.utils.escape_markdown(why))})")
    return MessageData(content=trim("\n".join(lines), limits.CONTENT_MAX))


def _no_matches(result: Subscribed, tr: Translate) -> str:
    """No match yet; and which topics' papers come as close picks meanwhile."""
    if not result.close_to:
        return tr(NO_MATCHES)
    named = [topic_text(topic, tr) for topic in result.close_to[:EXAMPLES_SHOWN]]
    return tr(NO_MATCHES_CLOSE).format(topics=", ".join(f"**{n}**" for n in named))


def render_unsubscribed(result: Unsubscribed, tr: Translate) -> MessageData:
    template = UNSUBSCRIBED if result.removed else NOT_FOLLOWED
    return MessageData(content=tr(template).format(topic=topic_text(result.topic, tr)))


def render_followed(followed: Sequence[Followed], tr: Translate) -> MessageData:
    if not followed:
        return MessageData(content=tr(NONE_YET))
    lines = []
    for item in followed:
        detail = tr(RETIRED) if item.retired else tr(PAPERS_COUNT).format(count=item.match_count)
        name = item.topic.key if item.retired else topic_text(item.topic, tr)
        lines.append(f"• **{name}**: {detail}")
    embed = EmbedData(
        title=tr(YOUR_TOPICS),
        description=trim("\n".join(lines), limits.EMBED_DESCRIPTION_MAX),
        footer=tr(LIST_FOOTER).format(total=len(followed), limit=MAX_PER_USER),
        color=COLOR,
    )
    return MessageData(embeds=(embed,))


def render_mutes(mutes: Sequence[Mute], tr: Translate) -> EmbedData | None:
    """The reader's and the server's mutes as one embed (None without any)."""
    if not mutes:
        return None
    lines = [
        f"• **{defuse_mentions(m.label)}** ({tr(MUTE_SERVER if m.user_id == SERVER else MUTE_YOU)})"
        for m in mutes
    ]
    return EmbedData(
        title=tr(YOUR_MUTES),
        description=trim("\n".join(lines), limits.EMBED_DESCRIPTION_MAX),
        color=MUTE_COLOR,
    )


def to_app_choices(choices: Sequence[Choice]) -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=c.name, value=c.value)
        for c in choices[: limits.AUTOCOMPLETE_CHOICES_MAX]
    ]


class Subscriptions(commands.Cog):
    def __init__(self, bot: PaperBot) -> None:
        self.bot = bot
        self._warmup = WarmUp("topics-warmup", bot.app.topics.warm)
        self._suggestions = Suggestions()

    async def cog_load(self) -> None:
        # Normalise the corpus for matching in the background, so the first
        # /subscribe after start-up does not pay for it.
        self._warmup.start()

    async def cog_unload(self) -> None:
        await self._warmup.stop()

    @staticmethod
    def _ids(interaction: discord.Interaction[PaperBot]) -> tuple[int, int]:
        return guild_id_of(interaction), interaction.user.id

    @app_commands.command(name="subscribe", description=SUBSCRIBE_DESCRIPTION)
    @app_commands.guild_only()
    @app_commands.describe(topic=SUBSCRIBE_TOPIC)
    async def subscribe(self, interaction: discord.Interaction[PaperBot], topic: str) -> None:
        guild_id, user_id = self._ids(interaction)
        tr = translator(interaction)
        service = self.bot.app.subscriptions
        # Matching a new topic takes seconds while the corpus is prepared
        # (just loaded, or just started).
        async with thinking_when_slow(interaction):
            try:
                result = await service.subscribe(guild_id, user_id, topic, utc_now())
            except TopicInputError as exc:
                raise UserError(localize(interaction, exc.template, **exc.values)) from None
            except SubscriptionLimitError as exc:
                raise UserError(localize(interaction, LIMIT, limit=exc.limit)) from None
            examples = await self._examples(result) if result.match_count else []
        answer = render_subscribed(result, examples, tr)
        if result.instead:
            await self._offers(interaction, result).start(interaction, answer)
        else:
            await reply(interaction, answer)

    def _offers(self, interaction: discord.Interaction[PaperBot], result: Subscribed) -> OffersView:
        """A button per topic to follow in place of a keyword nothing matches."""
        guild_id, user_id = self._ids(interaction)
        tr = translator(interaction)

        async def switch(pressed: discord.Interaction[PaperBot], index: int) -> str:
            service = self.bot.app.subscriptions
            old, topic = result.topic, result.instead[index]
            try:
                chosen = await service.switch(guild_id, user_id, old, topic, utc_now())
            except SubscriptionLimitError as exc:
                raise UserError(localize(pressed, LIMIT, limit=exc.limit)) from None
            examples = await self._examples(chosen) if chosen.match_count else []
            answer = render_subscribed(chosen, examples, translator(pressed), in_place_of=old)
            return answer.content

        return OffersView(
            owner_id=user_id,
            labels=[tr(INSTEAD_BUTTON).format(topic=t.label) for t in result.instead],
            on_choose=switch,
            not_yours_text=tr(NOT_YOUR_OFFER),
        )

    async def _examples(self, result: Subscribed) -> list[Example]:
        topics = self.bot.app.topics
        found = await topics.matches(result.topic)
        ids = found.ids[:EXAMPLES_SHOWN].tolist()
        return [
            Example(p.title, topics.explain(result.topic, p, matched=True))
            for p in await self.bot.app.corpus.get_papers(ids)
        ]

    @subscribe.autocomplete("topic")
    async def subscribe_autocomplete(
        self, _interaction: discord.Interaction[PaperBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return to_app_choices(self.bot.app.topics.suggest(current))

    @app_commands.command(name="unsubscribe", description=UNSUBSCRIBE_DESCRIPTION)
    @app_commands.guild_only()
    @app_commands.describe(topic=UNSUBSCRIBE_TOPIC)
    async def unsubscribe(self, interaction: discord.Interaction[PaperBot], topic: str) -> None:
        guild_id, user_id = self._ids(interaction)
        async with thinking_when_slow(interaction):
            try:
                result = await self.bot.app.subscriptions.unsubscribe(guild_id, user_id, topic)
            except TopicInputError as exc:
                raise UserError(localize(interaction, exc.template, **exc.values)) from None
        await reply(interaction, render_unsubscribed(result, translator(interaction)))

    @unsubscribe.autocomplete("topic")
    async def unsubscribe_autocomplete(
        self, interaction: discord.Interaction[PaperBot], current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None:
            return []
        service = self.bot.app.subscriptions
        lookup = service.suggest_followed(interaction.guild_id, interaction.user.id, current)
        return to_app_choices(await self._suggestions.latest(interaction, lookup) or [])

    @app_commands.command(name="subscriptions", description=SUBSCRIPTIONS_DESCRIPTION)
    @app_commands.guild_only()
    async def subscriptions(self, interaction: discord.Interaction[PaperBot]) -> None:
        guild_id, user_id = self._ids(interaction)
        async with thinking_when_slow(interaction):
            followed = await self.bot.app.subscriptions.followed(guild_id, user_id)
            muted = await self.bot.app.feedback.mutes(guild_id, user_id)
        tr = translator(interaction)
        message = render_followed(followed, tr)
        # Mutes (the reader's and the server's, set with /mute) below the topics.
        mutes = render_mutes(muted, tr)
        if mutes is not None:
            message = replace(message, embeds=(*message.embeds, mutes))
        await reply(interaction, message)


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(Subscriptions(bot))
