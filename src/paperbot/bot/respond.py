"""One way for cogs and views to answer an interaction, in the user's language.

* `translator(interaction)`: English text -> the user's language, unformatted
  (for the pure renderers, which fill in values themselves).
* `localize(interaction, english, **values)`: the same, formatted.
* `guild_id_of(interaction)`: the server a `guild_only` command runs in.
* `reply(interaction, message)`: the first response, or a follow-up when the
  interaction was already answered or deferred ("thinking…"). Ephemeral
  unless asked otherwise; it pings exactly the users the message lists
  (`MessageData.mention_user_ids`), so plain text pings nobody, never
  @everyone, @here or roles.
* `async with thinking_when_slow(interaction):` around the work before a
  command's first answer: says "thinking…" when that work is not done one
  second (`DEFER_AFTER_SECONDS`) after Discord created the interaction
  (`updating=True` for a button that will change its own message, which
  `update_message` then does either way). The block may await `now()` on
  what it gets to say "thinking…" at once, when it knows the answer is late.

Translations come from the tree's `CatalogTranslator`: the `ZH_CN` catalogs
of the loaded cogs (see `bot.translator`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import discord
from discord import app_commands

from paperbot.bot.embeds import message_kwargs
from paperbot.bot.translator import CatalogTranslator
from paperbot.core.render import MessageData, Translate, untranslated


def translator(interaction: discord.Interaction[Any]) -> Translate:
    """English template -> the user's language, unformatted (English if untranslated)."""
    catalog = interaction.client.tree.translator if interaction.client else None
    if not isinstance(catalog, CatalogTranslator):
        return untranslated
    locale = interaction.locale

    def translate(english: str) -> str:
        return catalog.lookup(english, locale) or english

    return translate


def localize(interaction: discord.Interaction[Any], english: str, **values: object) -> str:
    """`english` in the user's language, with `values` filled in."""
    return translator(interaction)(english).format(**values)


def guild_id_of(interaction: discord.Interaction[Any]) -> int:
    """The server a `guild_only` command runs in (Discord does not offer
    those in DMs; should one come, the error handler explains)."""
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    return interaction.guild_id


async def update_message(interaction: discord.Interaction[Any], **fields: Any) -> None:
    """Change the message a button was pressed on (`content=`, `embeds=`,
    `view=`, ...): as the response, or by an edit once the press was deferred."""
    if interaction.response.is_done():
        await interaction.edit_original_response(**fields)
    else:
        await interaction.response.edit_message(**fields)


async def reply(
    interaction: discord.Interaction[Any],
    message: MessageData | str,
    *,
    ephemeral: bool = True,
    view: discord.ui.View | None = None,
    file: discord.File | None = None,
) -> discord.WebhookMessage | None:
    """Answer `interaction` with `message` (and `view` and an attached `file`, if given).

    Returns the follow-up message when one was sent (a view that edits its
    message later needs it), None for a first response.
    """
    data = message if isinstance(message, MessageData) else MessageData(content=message)
    kwargs = message_kwargs(data)
    if view is not None:
        kwargs["view"] = view
    if file is not None:
        kwargs["file"] = file
    if interaction.response.is_done():
        return await interaction.followup.send(**kwargs, ephemeral=ephemeral, wait=True)
    await interaction.response.send_message(**kwargs, ephemeral=ephemeral)
    return None


async def edit_reply(
    interaction: discord.Interaction[Any] | None,
    follow_up: discord.Message | discord.WebhookMessage | None,
    **fields: Any,
) -> None:
    """Change what `reply` sent (a view's buttons on timeout): the follow-up
    it returned, else `interaction`'s original response; neither, nothing."""
    if follow_up is not None:
        await follow_up.edit(**fields)
    elif interaction is not None:
        await interaction.edit_original_response(**fields)


DEFER_AFTER_SECONDS = 1.0
"""An answer not ready this long after the interaction was created says
"thinking…" first: Discord drops an interaction not acknowledged within 3
seconds, and the answer still has to be rendered and sent."""


def budget_left(interaction: discord.Interaction[Any], seconds: float | None = None) -> float:
    """Seconds left of `seconds` (`DEFER_AFTER_SECONDS`) since the interaction
    was created (never more: a clock behind Discord's would otherwise lengthen it)."""
    budget = DEFER_AFTER_SECONDS if seconds is None else seconds
    age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
    return min(budget, max(0.0, budget - age))


@asynccontextmanager
async def thinking_when_slow(
    interaction: discord.Interaction[Any], *, ephemeral: bool = True, updating: bool = False
) -> AsyncIterator[Deferral]:
    """Defer ("thinking…", `ephemeral` like the answer to come; for `updating`,
    a button's quiet "the message will change") if the block is still running
    when `budget_left` runs out, or at once when the block awaits the
    `Deferral`'s `now()` (it knows the answer will be late).

    A burst of commands waits on the database's one connection in turn, so
    any awaited service call may be late. The block must not answer itself:
    then the deferral can never race an answer. After it, `reply` answers
    either way (as a follow-up when deferred).
    """
    deferral = Deferral(interaction, ephemeral=ephemeral, updating=updating)
    try:
        yield deferral
    finally:
        await deferral.settle()


class Deferral:
    """A deferral sent when the budget runs out (a timer, not a task: most
    commands answer in time), or at once when asked, unless settled first."""

    def __init__(
        self, interaction: discord.Interaction[Any], *, ephemeral: bool, updating: bool
    ) -> None:
        self._interaction = interaction
        self._ephemeral = ephemeral
        self._updating = updating
        self._sending: asyncio.Future[None] | None = None
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(budget_left(interaction), self.hurry)

    async def now(self) -> None:
        """Say "thinking…" now, in the caller's task, before work that will
        make the answer late (it would hold the loop, and with it a deferral
        left to another task)."""
        self._timer.cancel()
        if self._sending is not None:
            await self._sending  # already on its way
            return
        self._sending = sent = asyncio.get_running_loop().create_future()
        try:
            await self._send()
        finally:
            sent.set_result(None)  # its failure is raised here, once

    def hurry(self) -> None:
        """Send the deferral from a task of its own, at the loop's next turn:
        when the budget runs out, or for another task's interaction whose
        answer this task's work will delay."""
        self._timer.cancel()
        if self._sending is None:
            self._sending = asyncio.ensure_future(self._send())

    async def _send(self) -> None:
        if self._interaction.response.is_done():
            return
        if self._updating:
            await self._interaction.response.defer()
        else:
            await self._interaction.response.defer(ephemeral=self._ephemeral, thinking=True)

    async def settle(self) -> None:
        """Cancel a deferral still waiting; wait for one on its way (its
        failure is the command's, as a deferral the command sent would be)."""
        self._timer.cancel()
        if self._sending is not None:
            await self._sending
