"""A Delete/Cancel confirmation for /mydata delete (only the asker may answer).

`on_confirm` runs on Delete and returns the text that replaces the prompt;
Cancel says nothing was deleted. Either answer, or the timeout, removes the
buttons, so a prompt can be answered once.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from paperbot.bot.respond import thinking_when_slow, update_message
from paperbot.bot.views.owned import OwnerOnlyView

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 120.0


class ConfirmView(OwnerOnlyView):
    def __init__(
        self,
        *,
        owner_id: int,
        on_confirm: Callable[[discord.Interaction[Any]], Awaitable[str]],
        confirm_label: str,
        cancel_label: str,
        cancelled_text: str,
        not_yours_text: str,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        super().__init__(owner_id=owner_id, not_yours_text=not_yours_text, timeout=timeout)
        self._on_confirm = on_confirm
        self._cancelled_text = cancelled_text
        self.confirm.label = confirm_label
        self.cancel.label = cancel_label
        self.interaction: discord.Interaction[Any] | None = None

    async def _finish(self, interaction: discord.Interaction[Any], text: str) -> None:
        self.stop()
        await update_message(
            interaction, content=text, view=None, allowed_mentions=discord.AllowedMentions.none()
        )

    @discord.ui.button(label="Delete", style=discord.ButtonStyle.danger)
    async def confirm(
        self, interaction: discord.Interaction[Any], _button: discord.ui.Button[ConfirmView]
    ) -> None:
        async with thinking_when_slow(interaction, updating=True):
            text = await self._on_confirm(interaction)
        await self._finish(interaction, text)

    @discord.ui.button(label="Cancel", style=discord.ButtonStyle.secondary)
    async def cancel(
        self, interaction: discord.Interaction[Any], _button: discord.ui.Button[ConfirmView]
    ) -> None:
        await self._finish(interaction, self._cancelled_text)

    async def on_timeout(self) -> None:
        if self.interaction is None:
            return
        try:
            await self.interaction.edit_original_response(content=self._cancelled_text, view=None)
        except discord.HTTPException as exc:
            log.info("could not close the confirmation: %s", exc)
