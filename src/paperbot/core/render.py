"""Message rendering to plain data that fits Discord's limits.

The bot layer turns these dataclasses into `discord.Embed`s one to one, so
every limit is enforced (and tested) here, without importing discord.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from paperbot.core import limits

ELLIPSIS = "…"
# Sentence ends in Chinese and English text; a trim prefers to stop after one.
_SENTENCE_END = re.compile(r"[。！？；.!?;](?=\s|$)|[。！？；]")
_MASS_MENTION = re.compile(r"@(everyone|here)", re.IGNORECASE)
_USER_OR_ROLE_MENTION = re.compile(r"<@([!&]?)(\d+)>")

#: English text -> the same text in the reader's language, unformatted
#: (renderers fill in the values); the bot makes one per interaction.
Translate = Callable[[str], str]


def untranslated(english: str) -> str:
    """The `Translate` that keeps the English (tests, and no catalog loaded)."""
    return english


@dataclass(frozen=True, slots=True)
class EmbedField:
    name: str
    value: str
    inline: bool = False


@dataclass(frozen=True, slots=True)
class EmbedData:
    """An embed as plain data: what `discord.Embed` needs, nothing more."""

    title: str
    description: str = ""
    url: str | None = None
    fields: tuple[EmbedField, ...] = ()
    footer: str | None = None
    color: int | None = None

    def size(self) -> int:
        """Characters that count toward the 6,000 per-message embed limit."""
        return (
            len(self.title)
            + len(self.description)
            + sum(len(f.name) + len(f.value) for f in self.fields)
            + len(self.footer or "")
        )


@dataclass(frozen=True, slots=True)
class MessageData:
    """A whole message: content, embeds, and exactly who may be pinged."""

    content: str = ""
    embeds: tuple[EmbedData, ...] = ()
    mention_user_ids: tuple[int, ...] = field(default=())
    # Papers readers can act on (👍 👎 🔖 more like this), in embed order.
    paper_ids: tuple[int, ...] = ()


def defuse_mentions(text: str) -> str:
    """Break @everyone/@here and raw user/role mentions found in data.

    `allowed_mentions` already stops the ping; this keeps the text from even
    looking like one (corpus and query text are not ours).
    """
    text = _MASS_MENTION.sub("@\u200b\\1", text)
    return _USER_OR_ROLE_MENTION.sub("<@\u200b\\1\\2>", text)


def trim(text: str, limit: int) -> str:
    """Cut text to at most `limit` characters, at a sentence end if one is
    reasonably close, else at a word boundary, adding an ellipsis when cut."""
    text = text.strip()
    if len(text) <= limit:
        return text
    if limit <= len(ELLIPSIS):
        return text[:limit]
    window = text[: limit - len(ELLIPSIS)]
    sentence_ends = [m.end() for m in _SENTENCE_END.finditer(window)]
    # A sentence end in the last 40% of the window reads better than a cut.
    if sentence_ends and sentence_ends[-1] >= len(window) * 0.6:
        return window[: sentence_ends[-1]].rstrip()
    space = window.rfind(" ")
    if space >= len(window) * 0.8:
        window = window[:space]
    return window.rstrip(" ,，、;；:：") + ELLIPSIS


def fit_embeds(embeds: list[EmbedData], budget: int = limits.EMBED_TOTAL_MAX) -> list[EmbedData]:
    """Keep embeds, in order, while their total size stays within the budget."""
    kept: list[EmbedData] = []
    used = 0
    for embed in embeds[: limits.EMBEDS_PER_MESSAGE]:
        if used + embed.size() > budget:
            break
        kept.append(embed)
        used += embed.size()
    return kept
