"""Buttons offering something else in place of what the owner just did (the
topics /subscribe offers for a keyword nothing matches).

Only the owner may press them. A press runs `on_choose` with the offer's
index; the text it returns replaces the message and the buttons go, so an
offer is taken once. On timeout the buttons go and the text stays.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any

import discord

from paperbot.bot.respond import edit_reply, reply, thinking_when_slow, update_message
from paperbot.bot.views.owned import OwnerOnlyView
from paperbot.core import limits
from paperbot.core.render import MessageData, trim

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 300.0
MAX_OFFERS = 5
"""One action row of buttons."""

Choose = Callable[[discord.Interaction[Any], int], Awaitable[str]]


class OffersView(OwnerOnlyView):
    def __init__(
        self,
        *,
        owner_id: int,
        labels: Sequence[str],
        on_choose: Choose,
        not_yours_text: str,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        super().__init__(owner_id=owner_id, not_yours_text=not_yours_text, timeout=timeout)
        self._on_choose = on_choose
        self._interaction: discord.Interaction[Any] | None = None
        self._message: discord.WebhookMessage | None = None
        for index, label in enumerate(labels[:MAX_OFFERS]):
            button: discord.ui.Button[OffersView] = discord.ui.Button(
                label=trim(label, limits.BUTTON_LABEL_MAX), style=discord.ButtonStyle.primary
            )
            button.callback = partial(self._chosen, index)  # type: ignore[method-assign]
            self.add_item(button)

    async def start(self, interaction: discord.Interaction[Any], message: MessageData) -> None:
        """Answer `interaction` (privately) with `message` and these buttons."""
        self._interaction = interaction
        # A follow-up (after a defer) is kept: on timeout it is edited directly.
        self._message = await reply(interaction, message, view=self)

    async def _chosen(self, index: int, interaction: discord.Interaction[Any]) -> None:
        async with thinking_when_slow(interaction, updating=True):
            text = await self._on_choose(interaction, index)
        self.stop()
        await update_message(
            interaction, content=text, view=None, allowed_mentions=discord.AllowedMentions.none()
        )

    async def on_timeout(self) -> None:
        try:
            await edit_reply(self._interaction, self._message, view=None)
        except discord.HTTPException as exc:
            # Deleted message or expired token: the buttons are gone anyway.
            log.info("could not remove the offers: %s", exc)
