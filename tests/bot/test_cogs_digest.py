"""/digest cog callbacks with spec_set mocks of discord.py objects and a real database."""

from __future__ import annotations

import types
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import discord
import numpy as np
import pytest
from discord import app_commands

from paperbot.bot.cogs import digest as cog_module
from paperbot.bot.cogs.digest import Digest
from paperbot.bot.errors import UserError
from paperbot.bot.translator import CatalogTranslator
from paperbot.config import Settings
from paperbot.core.digest import TopicDemand
from paperbot.services.digest import DigestService
from paperbot.storage import papers
from paperbot.storage.db import Database
from tests.support.digest import FakeDiscord, ensure_digest_schema
from tests.support.discord_mocks import (
    BOT_PERMISSIONS,
    MockBot,
    MockGuild,
    MockInteraction,
    MockMember,
    MockTextChannel,
)

NOW = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
SUBSCRIBER = 10**17 + 5


@pytest.fixture
async def service(loaded_db: Database) -> DigestService:
    await ensure_digest_schema(loaded_db)
    ids = np.array([p.id for p in await papers.list_papers(loaded_db)][:20], dtype=np.int64)

    async def audience(_guild_id: int) -> Sequence[TopicDemand]:
        return [TopicDemand("diffusion", (SUBSCRIBER,), ids, np.full(len(ids), 0.5))]

    return DigestService(loaded_db, Settings(), audience)


@pytest.fixture
def guild() -> MockGuild:
    return MockGuild()


@pytest.fixture
def cog(service: DigestService) -> Digest:
    bot = MockBot(app=types.SimpleNamespace(digest=service, settings=service.settings))
    digest = Digest(bot)
    digest.clock = lambda: NOW
    return digest


def admin(guild: MockGuild, **kwargs: Any) -> MockInteraction:
    return MockInteraction.admin(guild=guild, **kwargs)


def member(guild: MockGuild) -> MockInteraction:
    return MockInteraction(guild=guild, user=MockMember(guild=guild))


def reply(interaction: MockInteraction) -> dict[str, Any]:
    """The kwargs of the interaction's (only) answer, first response or follow-up."""
    if interaction.followup.send.await_count:
        return dict(interaction.followup.send.await_args.kwargs)
    return dict(interaction.response.send_message.await_args.kwargs)


async def run_setup(cog: Digest, interaction: MockInteraction, **options: Any) -> None:
    channel = options.pop("channel", None) or MockTextChannel(guild=interaction.guild)
    await cog.setup.callback(cog, interaction, channel=channel, **options)


async def test_setup_stores_confirms_with_discord_timestamps(cog: Digest, guild: MockGuild) -> None:
    interaction = admin(guild)
    channel = MockTextChannel(guild=guild)
    await run_setup(cog, interaction, channel=channel, time="09:30", timezone="Asia/Shanghai")
    sent = reply(interaction)
    assert sent["ephemeral"] is True
    # 09:30 Shanghai on 30 Nov is 01:30 UTC, already past at 08:00 UTC: tomorrow.
    ts = int(datetime(2026, 12, 1, 1, 30, tzinfo=UTC).timestamp())
    assert f"<t:{ts}:F>" in sent["content"]
    assert f"<t:{ts}:R>" in sent["content"]
    assert channel.mention in sent["content"]
    assert sent["allowed_mentions"].users == []
    assert sent["allowed_mentions"].everyone is False
    stored = await cog.service.get_settings(guild.id)
    assert stored is not None
    assert stored.channel_id == channel.id
    assert stored.count == 5


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"time": "25:61"}, "09:00"),
        ({"time": "09:00", "timezone": "Asia/Shangai"}, "Asia/Shanghai"),
    ],
)
async def test_setup_refuses_bad_options_and_stores_nothing(
    cog: Digest, guild: MockGuild, options: dict[str, Any], error: str
) -> None:
    with pytest.raises(UserError, match=error):
        await run_setup(cog, admin(guild), **options)
    assert await cog.service.get_settings(guild.id) is None


@pytest.mark.parametrize(
    ("missing", "named"),
    [
        ("embed_links", "Embed Links"),
        ("send_messages", "Send Messages"),
        ("view_channel", "View Channel"),
        ("read_message_history", "Read Message History"),
    ],
)
async def test_setup_checks_the_bot_can_post_in_the_channel(
    cog: Digest, guild: MockGuild, missing: str, named: str
) -> None:
    permissions = discord.Permissions(BOT_PERMISSIONS.value)
    setattr(permissions, missing, False)
    channel = MockTextChannel(guild=guild, bot_permissions=permissions)
    with pytest.raises(UserError, match=named):
        await run_setup(cog, admin(guild), channel=channel, time="09:00")
    assert await cog.service.get_settings(guild.id) is None


@pytest.mark.parametrize("name", ["setup", "now", "off"])
async def test_manage_server_is_required(cog: Digest, guild: MockGuild, name: str) -> None:
    command: app_commands.Command[Any, Any, Any] = getattr(cog, name)
    # What the check reads, `interaction.permissions`, differs in exactly this flag.
    assert not member(guild).permissions.manage_guild
    assert admin(guild).permissions.manage_guild
    with pytest.raises(app_commands.MissingPermissions) as info:
        await command._check_can_run(member(guild))
    assert info.value.missing_permissions == ["manage_guild"]
    assert await command._check_can_run(admin(guild))
    manager = MockInteraction(
        guild=guild,
        user=MockMember(guild=guild, permissions=discord.Permissions(manage_guild=True)),
    )
    assert await command._check_can_run(manager)


async def test_preview_is_for_anyone(cog: Digest, guild: MockGuild) -> None:
    assert await cog.preview._check_can_run(member(guild))


def test_the_group_is_guild_only(cog: Digest) -> None:
    group = cog.app_command
    assert group is not None
    assert group.guild_only is True
    assert group.default_permissions is None  # preview stays visible to everyone


async def test_off_stops_and_keeps_settings(cog: Digest, guild: MockGuild) -> None:
    await run_setup(cog, admin(guild), time="09:00")
    interaction = admin(guild)
    await cog.off.callback(cog, interaction)
    assert "off" in reply(interaction)["content"]
    stored = await cog.service.get_settings(guild.id)
    assert stored is not None
    assert not stored.enabled


async def test_off_without_setup_is_a_clear_error(cog: Digest, guild: MockGuild) -> None:
    with pytest.raises(UserError, match="/digest setup"):
        await cog.off.callback(cog, admin(guild))


async def test_now_posts_into_the_configured_channel(
    cog: Digest, guild: MockGuild, monkeypatch: pytest.MonkeyPatch
) -> None:
    channel = MockTextChannel(guild=guild)
    await run_setup(cog, admin(guild), channel=channel, time="09:00", count=3)
    fake = FakeDiscord(now=NOW)
    monkeypatch.setattr(cog, "transport", lambda: fake)
    interaction = admin(guild)
    await cog.now.callback(cog, interaction)
    interaction.response.defer.assert_awaited_once_with(ephemeral=True, thinking=True)
    [sent] = fake.in_channel(channel.id)
    assert len(sent.message.embeds) == 3
    assert sent.message.mention_user_ids == (SUBSCRIBER,)
    answer = reply(interaction)
    assert answer["ephemeral"] is True
    assert f"/{guild.id}/{channel.id}/{sent.id}" in answer["content"]


async def test_now_reports_a_lost_channel(
    cog: Digest, guild: MockGuild, monkeypatch: pytest.MonkeyPatch
) -> None:
    channel = MockTextChannel(guild=guild)
    await run_setup(cog, admin(guild), channel=channel, time="09:00")
    fake = FakeDiscord(now=NOW)
    fake.gone.add(channel.id)
    monkeypatch.setattr(cog, "transport", lambda: fake)
    interaction = admin(guild)
    await cog.now.callback(cog, interaction)
    assert "no longer exists" in reply(interaction)["content"]


async def test_preview_is_ephemeral_and_pings_nobody(cog: Digest, guild: MockGuild) -> None:
    await run_setup(cog, admin(guild), time="09:00", count=4)
    interaction = member(guild)
    await cog.preview.callback(cog, interaction)
    sent = reply(interaction)
    assert sent["ephemeral"] is True
    assert len(sent["embeds"]) == 4
    assert sent["allowed_mentions"].users == []
    assert f"<@{SUBSCRIBER}>" not in sent["content"]
    assert "notifying 1 subscribers" in sent["content"]
    assert await cog.service.preview(guild.id, NOW)  # nothing was marked as posted


async def test_admins_are_told_about_a_failed_post_once(cog: Digest, guild: MockGuild) -> None:
    await run_setup(cog, admin(guild), time="09:00")
    from paperbot.storage import digests as store

    await store.record_failure(cog.service.db, guild.id, "The digest of 2026-11-30 failed", NOW)
    # A plain member does not see (or clear) it.
    plain = member(guild)
    await cog.preview.callback(cog, plain)
    assert "⚠️" not in reply(plain)["content"]
    first = admin(guild)
    await cog.preview.callback(cog, first)
    assert reply(first)["content"].startswith("⚠️ The digest of 2026-11-30 failed")
    second = admin(guild)
    await cog.preview.callback(cog, second)
    assert "⚠️" not in reply(second)["content"]


async def test_timezone_autocomplete(cog: Digest, guild: MockGuild) -> None:
    choices = await cog.timezone_autocomplete(admin(guild), "shang")
    assert choices[0].value == "Asia/Shanghai"
    first = await cog.timezone_autocomplete(admin(guild), "")
    assert len(first) <= 25
    assert first[0].value == cog.service.settings.digest.default_timezone
    assert len(await cog.timezone_autocomplete(admin(guild), "a")) == 25


def test_every_description_has_a_chinese_translation() -> None:
    texts = [
        cog_module.GROUP,
        cog_module.SETUP,
        cog_module.SETUP_CHANNEL,
        cog_module.SETUP_TIME,
        cog_module.SETUP_TIMEZONE,
        cog_module.SETUP_COUNT,
        cog_module.OFF,
        cog_module.NOW,
        cog_module.PREVIEW,
    ]
    assert [t for t in texts if not cog_module.ZH_CN.get(t)] == []


async def test_replies_follow_the_users_language(cog: Digest, guild: MockGuild) -> None:
    translator = CatalogTranslator()
    translator.add_module(cog_module)
    interaction = admin(guild, locale=discord.Locale.chinese)
    interaction.client.tree.translator = translator
    await run_setup(cog, interaction, time="09:30", timezone="Asia/Shanghai")
    assert "每日摘要已设置" in reply(interaction)["content"]
    bad = admin(guild, locale=discord.Locale.chinese)
    bad.client.tree.translator = translator
    with pytest.raises(UserError, match="时间或时区无效"):
        await run_setup(cog, bad, time="25:00")
