"""A cog's slash commands and autocompletes called directly, the way discord.py calls them.

discord.py types a command's callback and an autocomplete as "with or without
the cog as first argument" (a union of two callables); these helpers call the
cog-bound form, so the tests need no `type: ignore` at each call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

ChoiceT = TypeVar("ChoiceT", str, int, float)


async def invoke(
    command: app_commands.Command[Any, ..., Any],
    interaction: discord.Interaction[Any],
    /,
    **options: Any,
) -> None:
    """Run `command` on the cog it is bound to, with its options by name."""
    callback: Callable[..., Awaitable[object]] = command.callback
    assert command.binding is not None, f"/{command.qualified_name} is not bound to a cog"
    await callback(command.binding, interaction, **options)


async def complete(
    callback: Callable[..., Awaitable[list[app_commands.Choice[ChoiceT]]]],
    cog: commands.Cog,
    interaction: discord.Interaction[Any],
    current: str,
) -> list[app_commands.Choice[ChoiceT]]:
    """The choices an autocomplete of `cog` (`Cog.x_autocomplete`) offers for `current`."""
    return await callback(cog, interaction, current)
