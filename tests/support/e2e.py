"""The e2e harness: a running bot and the fake Discord, with shortcuts (`E2E`).

The fixtures that build one (`fake_discord`, `start_bot`, `bot`, `e2e`) are in
tests/e2e/conftest.py, which documents how to use them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from paperbot.bot.client import PaperBot
from paperbot.config import Settings
from tests.fake_discord import (
    ADMIN_PERMISSIONS,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeUser,
    InteractionResult,
)

TOKEN = "fake-token"
READY_TIMEOUT = 10.0

StartBot = Callable[..., Awaitable[PaperBot]]


def with_bot(settings: Settings, **bot_values: Any) -> Settings:
    """A copy of `settings` with `[bot]` keys changed (e.g. `sync_guild=...`)."""
    return settings.model_copy(update={"bot": settings.bot.model_copy(update=bot_values)})


async def stop_bot(bot: PaperBot) -> None:
    """Close a bot started by `start_bot` before the test ends (e.g. to restart it)."""
    await bot.close()
    # start_bot's teardown closes again: both closes are idempotent.
    await bot.app.close()


class E2E:
    """A running bot, the fake Discord, and shortcuts with sensible defaults."""

    def __init__(self, fake: FakeDiscord, bot: PaperBot) -> None:
        self.fake = fake
        self.bot = bot
        self.guild: FakeGuild = next(iter(fake.guilds.values()))
        self.channel: FakeChannel = self.guild.channels[0]
        self.member = FakeUser(name="reader")
        self.admin = FakeUser(name="admin", permissions=ADMIN_PERMISSIONS)

    async def slash(
        self,
        command: str,
        /,
        *,
        user: FakeUser | None = None,
        guild: FakeGuild | None = None,
        channel: FakeChannel | None = None,
        options: dict[str, Any] | None = None,
        **more_options: Any,
    ) -> InteractionResult:
        """`channel` is where the command is typed; clashing option names go in `options`."""
        guild = guild or self.guild
        return await self.fake.slash(
            command,
            user=user or self.member,
            guild=guild,
            channel=channel or (self.channel if guild is self.guild else None),
            options=options,
            **more_options,
        )

    async def dm(
        self,
        command: str,
        /,
        *,
        user: FakeUser | None = None,
        options: dict[str, Any] | None = None,
        **more_options: Any,
    ) -> InteractionResult:
        """The command sent from a direct message with the bot."""
        return await self.fake.slash(
            command, user=user or self.member, guild=None, options=options, **more_options
        )

    async def autocomplete(
        self,
        command: str,
        /,
        *,
        focused: str,
        user: FakeUser | None = None,
        options: dict[str, Any] | None = None,
        **more_options: Any,
    ) -> list[dict[str, Any]]:
        return await self.fake.autocomplete(
            command,
            focused=focused,
            user=user or self.member,
            guild=self.guild,
            channel=self.channel,
            options=options,
            **more_options,
        )

    async def click(
        self,
        message: dict[str, Any] | None,
        custom_id: str,
        *,
        user: FakeUser | None = None,
        values: list[str] | None = None,
    ) -> InteractionResult:
        """Press a button, or choose `values` in a select menu."""
        assert message is not None, "no message to click on"
        in_guild = "guild_id" in message
        return await self.fake.click(
            message,
            custom_id,
            user=user or self.member,
            guild=self.guild if in_guild else None,
            channel=self.channel if in_guild else None,
            values=values,
        )
