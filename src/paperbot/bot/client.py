"""The Discord client: intents, default mention policy, extensions."""

from __future__ import annotations

import logging

import discord
from discord.ext import commands

from paperbot.services.app import App

log = logging.getLogger(__name__)

# One extension per feature (python-discord/bot style).
EXTENSIONS: tuple[str, ...] = ()


class PaperBot(commands.Bot):
    """commands.Bot carrying the application services for the cogs."""

    def __init__(self, app: App) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            # Slash commands only: no message content, no member list.
            intents=discord.Intents(guilds=True),
            # Nothing pings unless a send lists the users explicitly.
            allowed_mentions=discord.AllowedMentions.none(),
            help_command=None,
        )
        self.app = app

    async def setup_hook(self) -> None:
        for extension in EXTENSIONS:
            await self.load_extension(extension)
