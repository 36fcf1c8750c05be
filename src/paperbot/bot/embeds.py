"""Plain render data (core.render) to discord.py objects, one to one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord

from paperbot.core.render import EmbedData, MessageData


def to_embed(data: EmbedData) -> discord.Embed:
    embed = discord.Embed(title=data.title, description=data.description or None, url=data.url)
    if data.color is not None:
        embed.colour = discord.Colour(data.color)
    for field in data.fields:
        embed.add_field(name=field.name, value=field.value, inline=field.inline)
    if data.footer:
        embed.set_footer(text=data.footer)
    return embed


@dataclass(frozen=True, slots=True)
class _UserRef:
    """A user for `AllowedMentions` whose id serialises as a string.

    Discord documents snowflakes in `allowed_mentions.users` as strings (and
    its OpenAPI spec, enforced by the tests, says so); discord.py writes `x.id`
    as it finds it, and `discord.Object` would make it an int.
    """

    id: str


def allowed_mentions_for(user_ids: tuple[int, ...]) -> discord.AllowedMentions:
    """Exactly these users may be pinged: never @everyone, @here or roles."""
    return discord.AllowedMentions(
        everyone=False,
        roles=False,
        users=[_UserRef(str(user_id)) for user_id in user_ids],  # type: ignore[misc]
        replied_user=False,
    )


def message_kwargs(message: MessageData) -> dict[str, Any]:
    """Keyword arguments for `send`/`send_message`/`edit` from plain data."""
    return {
        "content": message.content or None,
        "embeds": [to_embed(e) for e in message.embeds],
        "allowed_mentions": allowed_mentions_for(message.mention_user_ids),
    }
