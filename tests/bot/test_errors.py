"""The application-command error handler, with spec_set mocks."""

from __future__ import annotations

import logging
import re
from typing import Any
from unittest import mock

import discord
import pytest
from discord import app_commands

from paperbot.bot import errors
from paperbot.bot.errors import UserError, handle_error, user_message
from paperbot.bot.translator import CatalogTranslator
from tests.support.discord_mocks import MockInteraction


def _cooldown(seconds: float) -> app_commands.CommandOnCooldown:
    return app_commands.CommandOnCooldown(app_commands.Cooldown(1, 60), seconds)


def _transformer_error(kind: discord.AppCommandOptionType, value: str) -> Exception:
    return app_commands.TransformerError(value, kind, mock.MagicMock(spec=app_commands.Transformer))


def _chinese(interaction: MockInteraction) -> MockInteraction:
    translator = CatalogTranslator()
    translator.add_module(errors)
    interaction.client.tree.translator = translator
    interaction.locale = discord.Locale.chinese
    return interaction


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (_cooldown(2.2), "try again in 3 s"),
        (_cooldown(0.01), "try again in 1 s"),
        (app_commands.NoPrivateMessage(), "only works in a server"),
        (app_commands.MissingPermissions(["manage_guild"]), "need the Manage Server permission"),
        (
            app_commands.BotMissingPermissions(["embed_links", "send_messages"]),
            "I need the Embed Links, Send Messages permission in this channel",
        ),
        (
            _transformer_error(discord.AppCommandOptionType.channel, "general"),
            "“general” is not a valid channel.",
        ),
        (
            _transformer_error(discord.AppCommandOptionType.string, "**x**"),
            r"“\*\*x\*\*” is not a valid value for this option.",
        ),
        (app_commands.CheckFailure(), "can't use this command here"),
        (app_commands.CommandNotFound("gone", []), "just updated"),
        (UserError("Unknown topic “xyz”."), "Unknown topic “xyz”."),
    ],
)
def test_expected_problems_have_their_own_message(error: Exception, expected: str) -> None:
    message = user_message(MockInteraction(), error)
    assert message is not None
    assert expected in message


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (app_commands.MissingPermissions(["manage_guild"]), "管理服务器"),
        (_cooldown(5), "5 秒后再试"),
        (app_commands.NoPrivateMessage(), "只能在服务器中使用"),
    ],
)
def test_messages_in_chinese(error: Exception, expected: str) -> None:
    message = user_message(_chinese(MockInteraction()), error)
    assert message is not None
    assert expected in message


@pytest.mark.parametrize(
    "error",
    [
        RuntimeError("bug"),
        app_commands.CommandInvokeError(mock.MagicMock(), KeyError("missing")),
    ],
)
def test_bugs_have_no_expected_message(error: Exception) -> None:
    assert user_message(MockInteraction(), error) is None


async def test_unanswered_interaction_gets_an_ephemeral_apology_with_logged_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    interaction = MockInteraction()
    with caplog.at_level(logging.ERROR, logger="paperbot.bot.errors"):
        error_id = await handle_error(interaction, RuntimeError("boom"))
    assert error_id is not None
    assert re.fullmatch(r"[0-9a-f]{8}", error_id)
    kwargs = interaction.response.send_message.await_args.kwargs
    assert kwargs["ephemeral"] is True
    text = interaction.response.send_message.await_args.args[0]
    assert error_id in text
    assert "boom" not in text
    assert kwargs["allowed_mentions"].to_dict()["parse"] == []
    [record] = caplog.records
    assert error_id in record.getMessage()
    assert record.exc_info is not None
    assert str(record.exc_info[1]) == "boom"


async def test_invoke_error_logs_the_original_exception(caplog: pytest.LogCaptureFixture) -> None:
    original = ValueError("the real cause")
    wrapped = app_commands.CommandInvokeError(mock.MagicMock(), original)
    with caplog.at_level(logging.ERROR, logger="paperbot.bot.errors"):
        await handle_error(MockInteraction(), wrapped)
    assert caplog.records[0].exc_info is not None
    assert caplog.records[0].exc_info[1] is original


async def test_deferred_interaction_gets_the_thinking_message_replaced() -> None:
    interaction = MockInteraction()
    await interaction.response.defer(ephemeral=True, thinking=True)
    interaction.response.type = discord.InteractionResponseType.deferred_channel_message
    await handle_error(interaction, app_commands.NoPrivateMessage())
    interaction.edit_original_response.assert_awaited_once()
    assert (
        "only works in a server" in interaction.edit_original_response.await_args.kwargs["content"]
    )
    interaction.followup.send.assert_not_awaited()


async def test_answered_interaction_gets_an_ephemeral_follow_up() -> None:
    interaction = MockInteraction()
    await interaction.response.send_message("partial results")
    interaction.response.type = discord.InteractionResponseType.channel_message
    await handle_error(interaction, UserError("No more pages."))
    interaction.followup.send.assert_awaited_once()
    assert interaction.followup.send.await_args.kwargs["ephemeral"] is True
    assert interaction.followup.send.await_args.args == ("No more pages.",)


async def test_expired_interaction_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    interaction = MockInteraction()
    response: Any = mock.MagicMock(status=404, reason="Not Found")
    interaction.response.send_message.side_effect = discord.NotFound(
        response, "Unknown interaction"
    )
    with caplog.at_level(logging.WARNING, logger="paperbot.bot.errors"):
        await handle_error(interaction, UserError("x"))
    assert "could not send an error message" in caplog.text


def test_install_makes_it_the_trees_handler() -> None:
    client = discord.Client(intents=discord.Intents.none())
    tree = app_commands.CommandTree(client)
    errors.install(tree)
    assert tree.on_error is errors.on_app_command_error
