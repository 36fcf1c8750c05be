"""A view only its owner may press (the confirmation, the offers): anyone else
is told so privately, and their press changes nothing."""

from __future__ import annotations

from typing import Any

import discord

from paperbot.bot import errors


class OwnerOnlyView(errors.HandledView):
    def __init__(self, *, owner_id: int, not_yours_text: str, timeout: float) -> None:
        super().__init__(timeout=timeout)
        self.owner_id = owner_id
        self._not_yours_text = not_yours_text

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        if interaction.user.id == self.owner_id:
            return True
        await errors.send_ephemeral(interaction, self._not_yours_text)
        return False
