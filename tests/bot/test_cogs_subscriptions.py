"""The subscriptions cog: callbacks with spec_set mocks over a real App."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
import pytest
from discord import app_commands

from paperbot.bot import respond
from paperbot.bot.cogs import subscriptions as cog_module
from paperbot.bot.cogs.subscriptions import Subscriptions
from paperbot.bot.errors import UserError
from paperbot.bot.translator import CatalogTranslator
from paperbot.bot.views.offers import OffersView
from paperbot.core import limits
from paperbot.core.topics import Topic
from paperbot.services.app import App
from paperbot.services.subscriptions import MAX_PER_USER, Subscribed
from tests.support.app import FIXED_NOW
from tests.support.commands import complete, invoke
from tests.support.discord_mocks import MockBot, MockGuild, MockInteraction, MockMember


@pytest.fixture
def app(loaded_app: App) -> App:
    return loaded_app


@pytest.fixture
def bot(app: App) -> MockBot:
    return MockBot(app=app)


@pytest.fixture
def cog(bot: MockBot) -> Subscriptions:
    return Subscriptions(bot)


def interaction_in(bot: MockBot, guild: Any = None, user: Any = None, **kwargs: Any) -> Any:
    guild = guild or MockGuild()
    return MockInteraction(client=bot, guild=guild, user=user or MockMember(guild=guild), **kwargs)


def reply(interaction: Any) -> dict[str, Any]:
    """The kwargs of the one answer (send_message, or followup after a defer)."""
    if interaction.response.send_message.await_count:
        call = interaction.response.send_message.await_args
    else:
        call = interaction.followup.send.await_args
    assert call is not None, "the interaction was never answered"
    return dict(call.kwargs)


def text_of(kwargs: dict[str, Any]) -> str:
    parts = [kwargs.get("content") or ""]
    for embed in kwargs.get("embeds") or []:
        parts += [embed.title or "", embed.description or "", embed.footer.text or ""]
    return "\n".join(parts)


def assert_private_and_silent(kwargs: dict[str, Any]) -> None:
    assert kwargs["ephemeral"] is True
    mentions: discord.AllowedMentions = kwargs["allowed_mentions"]
    assert mentions.everyone is False
    assert mentions.roles is False
    assert mentions.users == []


async def subscribe(cog: Subscriptions, interaction: Any, topic: str) -> dict[str, Any]:
    await invoke(cog.subscribe, interaction, topic=topic)
    return reply(interaction)


async def test_subscribe_names_the_topic_in_both_languages_with_matches(
    cog: Subscriptions, bot: MockBot
) -> None:
    interaction = interaction_in(bot)
    kwargs = await subscribe(cog, interaction, "scalling laws")  # a typo
    assert_private_and_silent(kwargs)
    text = text_of(kwargs)
    assert "Subscribed to **Scaling laws · 缩放定律**." in text
    count = len(await bot.app.topics.matches(bot.app.topics.resolve("scaling laws")))
    assert f"{count} papers match it now." in text
    assert "Best matches now:" in text
    assert "title: Scaling laws" in text
    assert "You follow 1 of 25 topics here" in text


async def test_subscribe_defers_when_preparing_the_corpus_is_slow(
    cog: Subscriptions, bot: MockBot, app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(respond, "DEFER_AFTER_SECONDS", 0.2)
    real_corpus = app.topics.corpus
    prepared: list[bool] = []

    async def corpus() -> Any:
        if not prepared:  # a large corpus just loaded: seconds to prepare
            await asyncio.sleep(0.4)
            prepared.append(True)
        return await real_corpus()

    monkeypatch.setattr(app.topics, "corpus", corpus)
    interaction = interaction_in(bot)
    await subscribe(cog, interaction, "tokenization")
    interaction.response.defer.assert_awaited_once_with(ephemeral=True, thinking=True)
    assert interaction.followup.send.await_args.kwargs["ephemeral"] is True
    # Prepared now: the next command answers directly.
    second = interaction_in(bot)
    await subscribe(cog, second, "quantization")
    second.response.defer.assert_not_awaited()
    second.response.send_message.assert_awaited_once()


async def test_subscribe_twice_is_friendly(cog: Subscriptions, bot: MockBot) -> None:
    guild = MockGuild()
    user = MockMember(guild=guild)
    await subscribe(cog, interaction_in(bot, guild, user), "alignment and RLHF")
    kwargs = await subscribe(cog, interaction_in(bot, guild, user), "对齐与 RLHF")
    assert "You already follow **Alignment and RLHF · 对齐与 RLHF** in this server." in text_of(
        kwargs
    )
    assert "You follow 1 of 25" in text_of(kwargs)


async def test_keyword_is_escaped_and_cannot_ping(cog: Subscriptions, bot: MockBot) -> None:
    kwargs = await subscribe(cog, interaction_in(bot), "@everyone *Toeplitz*")
    text = text_of(kwargs)
    assert "@everyone" not in text
    assert "\\*Toeplitz\\*" in text
    assert "(keyword)" in text
    assert "A keyword matches papers" in text
    assert_private_and_silent(kwargs)


async def test_keyword_without_matches(cog: Subscriptions, bot: MockBot) -> None:
    text = text_of(await subscribe(cog, interaction_in(bot), "Hyena hierarchy"))
    assert "No paper matches it yet" in text
    assert "Best matches" not in text


async def test_keyword_without_matches_names_the_topics_offered_meanwhile(
    cog: Subscriptions, bot: MockBot
) -> None:
    text = text_of(await subscribe(cog, interaction_in(bot), "quantization-aware training"))
    assert (
        "No paper matches it yet; until one does, the digest offers papers on "
        "**Quantization and low-bit training · 量化与低比特训练** as close to it."
    ) in text


async def test_a_keyword_without_matches_offers_buttons_to_follow_a_topic_instead(
    cog: Subscriptions, bot: MockBot
) -> None:
    kwargs = await subscribe(cog, interaction_in(bot), "lora adapters")
    view = kwargs["view"]
    assert isinstance(view, OffersView)
    labels = [str(item.label) for item in view.children if isinstance(item, discord.ui.Button)]
    assert labels == ["Follow Fine-tuning and PEFT · 微调与参数高效微调 instead"]
    assert all(len(label) <= limits.BUTTON_LABEL_MAX for label in labels)
    matched = await subscribe(cog, interaction_in(bot), "缩放定律")
    assert matched.get("view") is None


def test_the_answer_to_a_switch_names_both() -> None:
    topic = Topic("topic", "fine-tuning-peft", "Fine-tuning and PEFT", zh="微调与参数高效微调")
    result = Subscribed(topic, created=True, match_count=12, total=2)
    old = Topic.keyword("lora adapters")
    english = cog_module.render_subscribed(result, [], str, in_place_of=old).content
    assert english.startswith(
        "Now following **Fine-tuning and PEFT · 微调与参数高效微调** in place of "
        "“lora adapters” (keyword)."
    )
    assert "12 papers match it now." in english
    zh = cog_module.ZH_CN.get
    chinese = cog_module.render_subscribed(result, [], lambda t: zh(t, t), in_place_of=old)
    chinese_text = chinese.content
    assert chinese_text.startswith(
        "已改为关注 **Fine-tuning and PEFT · 微调与参数高效微调**，取代 “lora adapters” (关键词)。"
    )


@pytest.mark.parametrize(
    ("topic", "message"),
    [
        ("x" * 101, "A topic can be at most 100 characters; yours has 101."),
        ("12345", "A topic needs at least one letter or Chinese character."),
        ("the", "That topic is only common words"),
    ],
)
async def test_unusable_topic_is_a_user_error(
    cog: Subscriptions, bot: MockBot, topic: str, message: str
) -> None:
    interaction = interaction_in(bot)
    with pytest.raises(UserError, match=message):
        await invoke(cog.subscribe, interaction, topic=topic)


async def test_limit_is_a_clear_user_error(cog: Subscriptions, bot: MockBot) -> None:
    guild = MockGuild()
    user = MockMember(guild=guild)
    for i in range(MAX_PER_USER):
        await bot.app.subscriptions.subscribe(guild.id, user.id, f"kw{i}", FIXED_NOW)
    with pytest.raises(UserError, match="already follow 25 topics in this server"):
        await invoke(cog.subscribe, interaction_in(bot, guild, user), topic="tokenization")


async def test_errors_in_chinese(cog: Subscriptions, bot: MockBot) -> None:
    translator = CatalogTranslator()
    translator.add_module(cog_module)
    bot.tree.translator = translator
    interaction = interaction_in(bot, locale=discord.Locale.chinese)
    with pytest.raises(UserError, match="主题最多 100 个字符；你输入了 120 个。"):
        await invoke(cog.subscribe, interaction, topic="y" * 120)
    kwargs = await subscribe(cog, interaction_in(bot, locale=discord.Locale.chinese), "分词")
    assert "已订阅 **Tokenization · 分词**。" in text_of(kwargs)


async def test_unsubscribe(cog: Subscriptions, bot: MockBot) -> None:
    guild = MockGuild()
    user = MockMember(guild=guild)
    await subscribe(cog, interaction_in(bot, guild, user), "scaling laws")
    interaction = interaction_in(bot, guild, user)
    await invoke(cog.unsubscribe, interaction, topic="scaling-laws")
    kwargs = reply(interaction)
    assert_private_and_silent(kwargs)
    assert "Unsubscribed from **Scaling laws · 缩放定律**." in text_of(kwargs)
    again = interaction_in(bot, guild, user)
    await invoke(cog.unsubscribe, again, topic="scaling-laws")
    assert "You don't follow **Scaling laws · 缩放定律** in this server" in text_of(reply(again))


async def test_subscriptions_lists_only_this_users_topics_in_this_server(
    cog: Subscriptions, bot: MockBot
) -> None:
    guild, other_guild = MockGuild(), MockGuild()
    user = MockMember(guild=guild)
    await subscribe(cog, interaction_in(bot, guild, user), "tokenization")
    await subscribe(cog, interaction_in(bot, guild, user), "Toeplitz")
    await subscribe(cog, interaction_in(bot, other_guild, MockMember(guild=other_guild)), "DPO")
    await subscribe(cog, interaction_in(bot, guild, MockMember(guild=guild)), "quantization")
    interaction = interaction_in(bot, guild, user)
    await invoke(cog.subscriptions, interaction)
    kwargs = reply(interaction)
    assert_private_and_silent(kwargs)
    [embed] = kwargs["embeds"]
    assert embed.title == "Your topics in this server"
    lines = embed.description.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("• **Tokenization · 分词**: ")
    assert lines[0].endswith(" papers")
    assert lines[1].startswith("• **“Toeplitz” (keyword)**: 1 papers")
    assert embed.footer.text.startswith("2 of 25 topics")


async def test_subscriptions_when_empty(cog: Subscriptions, bot: MockBot) -> None:
    interaction = interaction_in(bot)
    await invoke(cog.subscriptions, interaction)
    assert "You don't follow any topics in this server yet" in text_of(reply(interaction))


async def test_full_list_fits_discord_limits(cog: Subscriptions, bot: MockBot) -> None:
    guild = MockGuild()
    user = MockMember(guild=guild)
    for i in range(MAX_PER_USER):
        await bot.app.subscriptions.subscribe(guild.id, user.id, f"{'k' * 95} {i}", FIXED_NOW)
    interaction = interaction_in(bot, guild, user)
    await invoke(cog.subscriptions, interaction)
    [embed] = reply(interaction)["embeds"]
    assert len(embed.description) <= limits.EMBED_DESCRIPTION_MAX
    assert len(embed) <= limits.EMBED_TOTAL_MAX


async def test_commands_are_guild_only(cog: Subscriptions) -> None:
    for command in (cog.subscribe, cog.unsubscribe, cog.subscriptions):
        assert command.guild_only is True
        assert command.allowed_contexts is not None
        assert command.allowed_contexts.guild
        assert not command.allowed_contexts.private_channel


async def test_dm_call_is_refused_even_if_discord_sent_it(cog: Subscriptions, bot: MockBot) -> None:
    interaction = MockInteraction.in_dm(client=bot)
    with pytest.raises(app_commands.NoPrivateMessage):
        await invoke(cog.subscriptions, interaction)


def assert_choices(choices: list[app_commands.Choice[str]]) -> None:
    assert 0 < len(choices) <= limits.AUTOCOMPLETE_CHOICES_MAX
    for choice in choices:
        payload = choice.to_dict()
        assert 1 <= len(payload["name"]) <= limits.CHOICE_NAME_MAX
        assert 1 <= len(payload["value"]) <= limits.CHOICE_VALUE_MAX


@pytest.mark.parametrize(
    ("current", "first"),
    [
        ("", None),
        ("scal", "scaling-laws"),
        ("缩放", "scaling-laws"),
        ("縮放", "scaling-laws"),
        ("kv cache", "efficient-inference"),
        ("Hyena", "Hyena"),
        ("x" * 300, None),
    ],
)
async def test_subscribe_autocomplete(
    cog: Subscriptions, bot: MockBot, current: str, first: str | None
) -> None:
    interaction = interaction_in(bot, type=discord.InteractionType.autocomplete)
    choices = await complete(Subscriptions.subscribe_autocomplete, cog, interaction, current)
    if current.startswith("x"):
        assert all("keyword" not in c.name for c in choices)
        return
    assert_choices(choices)
    if first is not None:
        assert choices[0].value == first


async def test_unsubscribe_autocomplete_offers_only_own_topics_here(
    cog: Subscriptions, bot: MockBot
) -> None:
    guild = MockGuild()
    alice, bob = MockMember(guild=guild), MockMember(guild=guild)
    await bot.app.subscriptions.subscribe(guild.id, alice.id, "scaling laws", FIXED_NOW)
    await bot.app.subscriptions.subscribe(guild.id, alice.id, "Toeplitz", FIXED_NOW)
    await bot.app.subscriptions.subscribe(guild.id, bob.id, "tokenization", FIXED_NOW)
    await bot.app.subscriptions.subscribe(MockGuild().id, alice.id, "DPO", FIXED_NOW)
    choices = await complete(
        Subscriptions.unsubscribe_autocomplete, cog, interaction_in(bot, guild, alice), ""
    )
    assert_choices(choices)
    assert [c.value for c in choices] == ["scaling-laws", "toeplitz"]
    assert (
        await complete(
            Subscriptions.unsubscribe_autocomplete, cog, MockInteraction.in_dm(client=bot), ""
        )
        == []
    )


def test_every_command_text_has_a_chinese_translation() -> None:
    english = [
        value
        for name, value in vars(cog_module).items()
        if name.isupper() and isinstance(value, str) and name not in {"COLOR"}
    ]
    missing = [text for text in english if text not in cog_module.ZH_CN]
    assert not missing
