"""Start-up against the fake Discord: login, gateway, command sync only when changed."""

from __future__ import annotations

import logging
from typing import Any

import discord
import pytest

from paperbot.bot.client import PaperBot
from paperbot.config import Settings
from tests.fake_discord import FakeDiscord
from tests.support.e2e import E2E, StartBot, stop_bot, with_bot


async def test_start_up_calls_and_intents(fake_discord: FakeDiscord, bot: PaperBot) -> None:
    paths = [(r.method, r.path) for r in fake_discord.requests]
    assert paths[:2] == [("GET", "/users/@me"), ("GET", "/oauth2/applications/@me")]
    assert ("PUT", f"/applications/{fake_discord.application_id}/commands") in paths
    # Only the non-privileged guilds intent: no message content, no member list.
    assert fake_discord.identifies[0]["intents"] == discord.Intents(guilds=True).value
    assert bot.is_ready()
    assert [g.id for g in bot.guilds] == list(fake_discord.guilds)


async def test_global_sync_sends_every_command_with_localizations(
    fake_discord: FakeDiscord, bot: PaperBot
) -> None:
    assert bot.synced is True
    assert len(fake_discord.syncs) == 1
    scope, commands = fake_discord.syncs[0]
    assert scope is None
    names = {c["name"] for c in commands}
    assert {c.name for c in bot.tree.get_commands()} == names
    about = next(c for c in commands if c["name"] == "about")
    # Names stay English; descriptions are localized for zh-CN and zh-TW.
    assert "zh-CN" not in (about.get("name_localizations") or {})
    assert about["description_localizations"]["zh-CN"].startswith("这个机器人")
    assert about["description_localizations"]["zh-TW"].startswith("這個機器人")


async def test_no_resync_when_unchanged_and_resync_when_changed(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    first = await start_bot()
    assert first.synced is True
    await stop_bot(first)

    second = await start_bot()
    assert second.synced is False
    assert len(fake_discord.syncs) == 1, "an unchanged command set must not be synced again"

    @second.tree.command(name="extra", description="A command added since the last sync")
    async def extra(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("hi", ephemeral=True)

    assert await second.sync_commands() is True
    assert "extra" in {c["name"] for c in fake_discord.syncs[-1][1]}
    assert await second.sync_commands() is False


async def test_guild_sync_goes_to_the_configured_guild(
    fake_discord: FakeDiscord, start_bot: StartBot, e2e_settings: Settings
) -> None:
    guild = next(iter(fake_discord.guilds))
    bot = await start_bot(with_bot(e2e_settings, sync_guild=guild))
    assert bot.synced is True
    assert fake_discord.requests_to("PUT", rf"/guilds/{guild}/commands$")
    assert not fake_discord.requests_to("PUT", r"/applications/\d+/commands$")
    assert {c["name"] for c in fake_discord.guild_commands[guild]} >= {"about"}
    assert all(c["guild_id"] == str(guild) for c in fake_discord.guild_commands[guild])


async def test_moving_to_global_sync_clears_the_development_guild(
    fake_discord: FakeDiscord, start_bot: StartBot, e2e_settings: Settings
) -> None:
    guild = next(iter(fake_discord.guilds))
    developing = await start_bot(with_bot(e2e_settings, sync_guild=guild))
    assert fake_discord.guild_commands[guild]
    await stop_bot(developing)

    production = await start_bot(e2e_settings)
    assert production.synced is True
    # The guild's own copies are gone, so members don't see every command twice.
    assert fake_discord.guild_commands[guild] == []
    assert fake_discord.syncs[-2:] == [(None, fake_discord.syncs[-2][1]), (guild, [])]
    await stop_bot(production)

    # Cleared once: a later global start has nothing left to clear.
    again = await start_bot(e2e_settings)
    assert again.synced is False
    assert not fake_discord.requests_to("PUT", rf"/guilds/{guild}/commands$")[2:]


async def test_guild_commands_answer_in_that_guild(
    fake_discord: FakeDiscord, start_bot: StartBot, e2e_settings: Settings
) -> None:
    guild = next(iter(fake_discord.guilds))
    bot = await start_bot(with_bot(e2e_settings, sync_guild=guild))
    result = await E2E(fake_discord, bot).slash("about")
    assert result.callback_type == 4
    assert result.payload["data"]["guild_id"] == str(guild)


async def test_a_second_guild_joining_later_is_usable(e2e: E2E) -> None:
    guild = e2e.fake.add_guild("second")
    e2e.fake.guilds.pop(guild.id)
    await e2e.fake.join_guild(guild)
    result = await e2e.slash("about", guild=guild)
    assert result.callback_type == 4
    assert e2e.bot.get_guild(guild.id) is not None


async def test_a_refused_sync_is_logged_and_retried_at_the_next_start(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    e2e_settings: Settings,
    caplog: pytest.LogCaptureFixture,
) -> None:
    guild = next(iter(fake_discord.guilds))
    settings = with_bot(e2e_settings, sync_guild=guild)
    fake_discord.fail("PUT", rf"/guilds/{guild}/commands$", 403)
    with caplog.at_level(logging.ERROR, logger="paperbot.bot.client"):
        first = await start_bot(settings)
    assert first.synced is False
    assert first.is_ready()
    assert "applications.commands scope" in caplog.text
    await stop_bot(first)
    second = await start_bot(settings)
    assert second.synced is True, "no hash may be stored for a failed sync"


def _described(items: list[dict[str, Any]], path: str = "") -> list[tuple[str, dict[str, Any]]]:
    found = []
    for item in items:
        where = f"{path} {item['name']}".strip()
        found.append((where, item))
        found += _described(item.get("options") or [], where)
    return found


@pytest.mark.usefixtures("bot")
async def test_every_description_has_chinese_localizations(fake_discord: FakeDiscord) -> None:
    """The ZH_CN contract: every command and option description is translated."""
    missing = []
    for where, item in _described(fake_discord.global_commands):
        localized = item.get("description_localizations") or {}
        if not {"zh-CN", "zh-TW"} <= set(localized):
            missing.append(f"{where}: {item.get('description')!r}")
        if item.get("name_localizations"):
            missing.append(f"{where}: names stay English, got {item['name_localizations']}")
        for choice in item.get("choices") or []:
            if "zh-CN" not in (choice.get("name_localizations") or {}):
                missing.append(f"{where} choice {choice['name']!r}")
    assert not missing, "add these to the cog's ZH_CN:\n" + "\n".join(missing)
