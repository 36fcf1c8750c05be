"""The error handler end to end, and Discord's own failures (429, 500) being survived."""

from __future__ import annotations

import logging
import re

import discord
import pytest
from discord import app_commands

from paperbot.bot.errors import UserError
from tests.fake_discord import CommandUnavailable, FakeDiscord
from tests.support.e2e import E2E, StartBot

ERROR_ID = re.compile(r"(?:error id|错误编号) `([0-9a-f]{8})`")


class Even(app_commands.Transformer):
    async def transform(self, _interaction: discord.Interaction, value: str) -> int:
        number = int(value)
        if number % 2:
            raise ValueError("odd")
        return number


def add_failing_commands(tree: app_commands.CommandTree) -> None:
    """Commands that fail in every way the handler distinguishes."""

    @tree.command(name="boom", description="Fails with a bug")
    async def boom(_interaction: discord.Interaction) -> None:
        raise RuntimeError("kaboom")

    @tree.command(name="boom-deferred", description="Defers, then fails")
    async def boom_deferred(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        raise RuntimeError("kaboom after defer")

    @tree.command(name="boom-after-reply", description="Replies, then fails")
    async def boom_after_reply(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("partial", ephemeral=True)
        raise RuntimeError("kaboom after reply")

    @tree.command(name="manage", description="Needs Manage Server")
    @app_commands.checks.has_permissions(manage_guild=True)
    async def manage(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("managed", ephemeral=True)

    @tree.command(name="bot-needs", description="Needs the bot to manage messages")
    @app_commands.checks.bot_has_permissions(manage_messages=True)
    async def bot_needs(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("ok", ephemeral=True)

    @tree.command(name="slowly", description="Once a minute")
    @app_commands.checks.cooldown(1, 60.0, key=lambda i: i.user.id)
    async def slowly(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("ok", ephemeral=True)

    @tree.command(name="even", description="Takes an even number")
    async def even(
        interaction: discord.Interaction, number: app_commands.Transform[int, Even]
    ) -> None:
        await interaction.response.send_message(str(number), ephemeral=True)

    @tree.command(name="refuse", description="Refuses politely")
    async def refuse(_interaction: discord.Interaction) -> None:
        raise UserError("That topic is not in the vocabulary.")


@pytest.fixture
async def failing(e2e: E2E) -> E2E:
    add_failing_commands(e2e.bot.tree)
    await e2e.bot.sync_commands()
    return e2e


async def test_a_bug_gets_an_apology_with_the_id_that_is_logged(
    failing: E2E, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="paperbot.bot.errors"):
        result = await failing.slash("boom")
    assert result.callback_type == 4
    assert result.ephemeral
    match = ERROR_ID.search(result.content)
    assert match, result.content
    assert "Traceback" not in result.text()
    assert "kaboom" not in result.text()
    [record] = [r for r in caplog.records if match.group(1) in r.getMessage()]
    assert "/boom" in record.getMessage()
    assert record.exc_info is not None
    assert "kaboom" in str(record.exc_info[1])


async def test_a_bug_after_deferring_replaces_the_thinking_message(failing: E2E) -> None:
    result = await failing.slash("boom-deferred")
    assert result.callback_type == 5
    assert result.ephemeral
    assert ERROR_ID.search(result.content), result.requests
    assert result.requests[-1].method == "PATCH"
    assert not result.message["flags"] & (1 << 7), "the loading state must end"


async def test_a_bug_after_replying_sends_an_ephemeral_follow_up(failing: E2E) -> None:
    result = await failing.slash("boom-after-reply")
    await result.wait_until(lambda: bool(result.followups))
    assert result.content == "partial"
    [followup] = result.followups
    assert followup["flags"] & 64
    assert ERROR_ID.search(followup["content"])


@pytest.mark.parametrize(
    ("command", "options", "expected"),
    [
        ("manage", {}, "You need the Manage Server permission"),
        ("bot-needs", {}, "I need the Manage Messages permission in this channel"),
        ("even", {"number": "3"}, "“3” is not a valid value for this option."),
        ("refuse", {}, "That topic is not in the vocabulary."),
    ],
)
async def test_expected_problems_get_their_own_message(
    failing: E2E, command: str, options: dict[str, str], expected: str
) -> None:
    result = await failing.slash(command, **options)
    assert result.ephemeral
    assert expected in result.content
    assert "error id" not in result.content


async def test_admin_passes_the_permission_check(failing: E2E) -> None:
    result = await failing.slash("manage", user=failing.admin)
    assert result.content == "managed"


async def test_cooldown_message_names_the_wait(failing: E2E) -> None:
    first = await failing.slash("slowly")
    second = await failing.slash("slowly")
    assert first.content == "ok"
    assert re.search(r"try again in (59|60) s", second.content), second.content
    other_user = await failing.slash("slowly", user=failing.admin)
    assert other_user.content == "ok", "cooldowns are per user"


async def test_messages_follow_the_users_language(failing: E2E) -> None:
    result = await failing.slash("manage", locale="zh-CN")
    assert "管理服务器" in result.content
    apology = await failing.slash("boom", locale="zh-CN")
    assert "抱歉" in apology.content
    assert ERROR_ID.search(apology.content)


async def test_a_429_on_the_reply_is_retried(e2e: E2E) -> None:
    fault = e2e.fake.fail("POST", r"/callback$", 429, retry_after=0.2)
    result = await e2e.slash("about")
    assert fault.hits == 1
    assert result.callback_type == 4
    assert [r.status for r in result.requests] == [429, 200]


async def test_a_500_on_the_reply_is_retried(e2e: E2E) -> None:
    fault = e2e.fake.fail("POST", r"/callback$", 500)
    result = await e2e.slash("about")
    assert fault.hits == 1
    assert [r.status for r in result.requests] == [500, 200]
    assert result.embeds


async def test_faults_during_start_up_are_survived(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake_discord.fail("PUT", r"/commands$", 429, retry_after=0.2)
    fake_discord.fail("GET", r"^/users/@me$", 500)
    bot = await start_bot()
    assert bot.synced is True
    statuses = [r.status for r in fake_discord.requests_to("PUT", r"/commands$")]
    assert statuses == [429, 200]
    assert [r.status for r in fake_discord.requests_to("GET", r"^/users/@me$")] == [500, 200]


async def test_an_invalid_payload_is_caught_by_the_fake(e2e: E2E) -> None:
    """The harness itself: a body Discord would reject is recorded as a violation."""

    @e2e.bot.tree.command(name="too-long", description="Sends 2,001 characters")
    async def too_long(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("x" * 2001)

    await e2e.bot.sync_commands()
    result = await e2e.slash("too-long", wait=False)
    await result.wait_until(lambda: len(result.requests) >= 2)
    assert any("maxLength=2000" in v for v in e2e.fake.violations), e2e.fake.violations
    # discord.py got a 400 (code 50035) and the error handler apologised.
    assert [r.status for r in result.requests][:2] == [400, 200]
    assert ERROR_ID.search(result.content)
    e2e.fake.violations.clear()  # expected here; any other test would fail at teardown


async def test_default_member_permissions_hide_a_command_from_members(e2e: E2E) -> None:
    @e2e.bot.tree.command(name="hidden", description="Only for server managers")
    @app_commands.default_permissions(manage_guild=True)
    async def hidden(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("hi", ephemeral=True)

    await e2e.bot.sync_commands()
    with pytest.raises(CommandUnavailable):
        await e2e.slash("hidden")
    assert (await e2e.slash("hidden", user=e2e.admin)).content == "hi"
