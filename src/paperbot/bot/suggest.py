"""Autocomplete answered in time, for the newest keystroke.

Discord sends an autocomplete interaction per keystroke, shows only the
answer to the newest one, and drops any not answered within 3 seconds (an
autocomplete cannot say "thinking…"). A lookup that waits on the database or
runs a search is therefore run through `Suggestions.latest`: a newer keystroke
of the same person in the same command cancels the older lookup, and a lookup
still running near the deadline is given up for an empty answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

import discord

from paperbot.bot.respond import budget_left

log = logging.getLogger(__name__)

T = TypeVar("T")

ANSWER_WITHIN_SECONDS = 2.5
"""Autocomplete choices not found this long after Discord created the
interaction are given up: the answer must still reach Discord within 3 s."""


class Suggestions:
    """One cog's running autocomplete lookups, at most one per typist and command."""

    def __init__(self) -> None:
        self._running: dict[tuple[int, str], asyncio.Future[Any]] = {}

    async def latest(self, interaction: discord.Interaction[Any], lookup: Awaitable[T]) -> T | None:
        """What `lookup` gives, or None when a newer keystroke came first or
        the time ran out (both cancel it)."""
        command = interaction.command.qualified_name if interaction.command else ""
        key = (interaction.user.id, command)
        older = self._running.get(key)
        if older is not None:
            older.cancel()  # its answer would not be shown
        task = asyncio.ensure_future(lookup)
        self._running[key] = task
        try:
            await asyncio.wait({task}, timeout=budget_left(interaction, ANSWER_WITHIN_SECONDS))
        finally:
            if self._running.get(key) is task:
                del self._running[key]
            if not task.done():
                task.cancel()
        if not task.done():
            log.info("autocomplete of /%s gave up near Discord's deadline", command)
            return None
        return None if task.cancelled() else task.result()
