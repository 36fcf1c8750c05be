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

Translations come from the tree's `CatalogTranslator`: the `ZH_CN` catalogs
of the loaded cogs (see `bot.translator`).
"""

from __future__ import annotations

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
