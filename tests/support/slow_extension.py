"""A test-only extension: `/slow` defers, works for a moment, then answers."""

from __future__ import annotations

import asyncio

import discord
from discord import app_commands
from discord.ext import commands

WORK_SECONDS = 0.3


@app_commands.command(name="slow", description="Takes a moment to answer")
async def slow(interaction: discord.Interaction) -> None:
    await interaction.response.defer(ephemeral=True, thinking=True)
    await asyncio.sleep(WORK_SECONDS)
    await interaction.followup.send("finished", ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    bot.tree.add_command(slow)
