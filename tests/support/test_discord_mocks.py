"""The mocks behave like the discord.py objects they stand for."""

from __future__ import annotations

import discord
import pytest

from tests.support.discord_mocks import (
    ADMIN_PERMISSIONS,
    MockBot,
    MockGuild,
    MockInteraction,
    MockMember,
    MockTextChannel,
)


async def test_response_is_done_after_answer_and_second_answer_raises() -> None:
    interaction = MockInteraction()
    assert interaction.response.is_done() is False
    await interaction.response.send_message("hi", ephemeral=True)
    assert interaction.response.is_done() is True
    assert interaction.response.answered_with is interaction.response.send_message
    with pytest.raises(discord.InteractionResponded):
        await interaction.response.defer()


async def test_defer_then_followup() -> None:
    interaction = MockInteraction()
    await interaction.response.defer(ephemeral=True, thinking=True)
    message = await interaction.followup.send("done", ephemeral=True, wait=True)
    assert interaction.response.is_done()
    assert message.id > 0
    interaction.followup.send.assert_awaited_once_with("done", ephemeral=True, wait=True)


@pytest.mark.parametrize(
    "call",
    [
        lambda i: i.response.send_message("x", ephemral=True),
        lambda i: i.followup.send("x", ephemeral=True, no_such_option=1),
        lambda i: i.edit_original_response("positional content"),
    ],
)
async def test_async_methods_check_the_real_signature(call: object) -> None:
    interaction = MockInteraction()
    with pytest.raises(TypeError):
        await call(interaction)  # type: ignore[operator]


@pytest.mark.parametrize("attribute", ["no_such_thing", "reponse", "gild"])
def test_spec_set_rejects_unknown_attributes(attribute: str) -> None:
    interaction = MockInteraction()
    with pytest.raises(AttributeError):
        getattr(interaction, attribute)
    with pytest.raises(AttributeError):
        setattr(interaction, attribute, 1)


def test_permissions_are_real_and_admin_differs_from_member() -> None:
    member = MockInteraction()
    admin = MockInteraction.admin()
    assert isinstance(member.permissions, discord.Permissions)
    assert not member.permissions.manage_guild
    assert admin.permissions == ADMIN_PERMISSIONS
    assert admin.permissions.manage_guild
    assert isinstance(admin.app_permissions, discord.Permissions)


def test_dm_interaction_has_no_guild() -> None:
    interaction = MockInteraction.in_dm()
    assert interaction.guild is None
    assert interaction.guild_id is None
    assert interaction.channel is None
    assert isinstance(interaction.user.id, int)


def test_channel_permissions_for_bot_and_member() -> None:
    guild = MockGuild()
    channel = MockTextChannel(guild=guild, bot_permissions=discord.Permissions(view_channel=True))
    assert channel.permissions_for(guild.me).send_messages is False
    assert channel.permissions_for(MockMember(guild=guild)).send_messages is True


def test_component_interaction_carries_custom_id() -> None:
    interaction = MockInteraction.component("search:next:2")
    assert interaction.type is discord.InteractionType.component
    assert interaction.custom_id == "search:next:2"
    assert interaction.data["custom_id"] == "search:next:2"


def test_bot_carries_the_app_given() -> None:
    app = object()
    bot = MockBot(app=app)
    assert bot.app is app
    with pytest.raises(AttributeError):
        bot.not_a_bot_attribute  # noqa: B018


def test_ids_are_unique() -> None:
    ids = {MockInteraction().id for _ in range(20)} | {MockMember().id for _ in range(20)}
    assert len(ids) == 40
