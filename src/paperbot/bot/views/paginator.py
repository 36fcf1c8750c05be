"""A generic Previous/Next paginator over pages of plain message data.

RoboDanny-style: the view only navigates; what a page says is built
beforehand, as plain `core.render.MessageData` (pure, tested without
Discord), and converted with `bot.embeds.message_kwargs`, so every page
keeps its `allowed_mentions` (nobody pinged unless a page lists users).

API::

    view = Paginator(pages, owner_id=interaction.user.id, tr=tr, timeout=180)
    await view.start(interaction, ephemeral=False)

* `pages`: a non-empty sequence of `MessageData`; one page is sent without
  buttons (there is nothing to turn). Any `Sequence` works, so pages can be
  rendered lazily, when first shown.
* Buttons: ◀ Previous, a disabled "page/total" indicator, Next ▶. Previous
  is disabled on the first page, Next on the last.
* Only `owner_id` may press them; anyone else gets an ephemeral
  `NOT_YOURS` reply and the page does not move.
* On timeout every button is disabled and the message edited once; a
  message that is gone by then is logged, not raised.
* `tr` localizes the fixed texts (`PREVIOUS`, `NEXT`, `NOT_YOURS`); their
  Chinese lives in the `ZH_CN` catalog of a cog that uses the paginator.
* `start` answers the interaction, or sends a follow-up if it was deferred
  (`bot.respond.reply`).
* `page_items(page)`: optional extra components for each page (the reader
  buttons of `bot.views.reader_actions`), swapped in as pages turn; they
  handle their own presses (anyone may press them) and outlive the timeout.
* Errors inside a button go to the bot's single error handler
  (`bot.errors.handle_error`), like command errors.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import discord

from paperbot.bot import errors, respond
from paperbot.bot.embeds import message_kwargs
from paperbot.core.render import MessageData, Translate, untranslated

log = logging.getLogger(__name__)

PREVIOUS = "Previous"
NEXT = "Next"
NOT_YOURS = "Only the person who ran this command can turn its pages."
DEFAULT_TIMEOUT = 180.0


class Paginator(errors.HandledView):
    """Previous/Next over `pages`; see the module docstring for the API."""

    def __init__(
        self,
        pages: Sequence[MessageData],
        *,
        owner_id: int,
        tr: Translate = untranslated,
        timeout: float | None = DEFAULT_TIMEOUT,
        page_items: Callable[[MessageData], Sequence[discord.ui.Item[Any]]] | None = None,
    ) -> None:
        if not pages:
            raise ValueError("a paginator needs at least one page")
        super().__init__(timeout=timeout)
        # Kept as given: a lazy sequence renders a page only when it is shown.
        self.pages = pages
        self.owner_id = owner_id
        self.index = 0
        self._tr = tr
        self._interaction: discord.Interaction[Any] | None = None
        self._message: discord.Message | discord.WebhookMessage | None = None
        self._page_items = page_items
        self._extras: list[discord.ui.Item[Any]] = []
        if len(pages) == 1:  # nothing to turn: only the page's own components
            for item in (self.previous, self.counter, self.next):
                self.remove_item(item)
        self.previous.label = tr(PREVIOUS)
        self.next.label = tr(NEXT)
        self._sync_buttons()

    @property
    def page(self) -> MessageData:
        return self.pages[self.index]

    def _sync_buttons(self) -> None:
        last = len(self.pages) - 1
        self.previous.disabled = self.index == 0
        self.next.disabled = self.index >= last
        self.counter.label = f"{self.index + 1}/{len(self.pages)}"
        if self._page_items is not None:
            for item in self._extras:
                self.remove_item(item)
            self._extras = list(self._page_items(self.page))
            for item in self._extras:
                self.add_item(item)

    async def start(
        self, interaction: discord.Interaction[Any], *, ephemeral: bool = False
    ) -> None:
        """Send the first page (with buttons when there are several pages)."""
        self._interaction = interaction
        several = len(self.pages) > 1
        view = self if several or self._extras else None
        # A follow-up (after a defer) is kept: on timeout it is edited directly.
        self._message = await respond.reply(interaction, self.page, ephemeral=ephemeral, view=view)
        if view is None:
            self.stop()

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        if interaction.user.id == self.owner_id:
            return True
        await interaction.response.send_message(
            self._tr(NOT_YOURS), ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
        )
        return False

    async def show(self, interaction: discord.Interaction[Any], index: int) -> None:
        """Turn to page `index` (clamped) by editing the message in place."""
        self.index = max(0, min(index, len(self.pages) - 1))
        self._sync_buttons()
        await interaction.response.edit_message(**message_kwargs(self.page), view=self)

    @discord.ui.button(label=PREVIOUS, emoji="◀️", style=discord.ButtonStyle.secondary)
    async def previous(
        self, interaction: discord.Interaction[Any], _button: discord.ui.Button[Paginator]
    ) -> None:
        await self.show(interaction, self.index - 1)

    @discord.ui.button(label="1/1", style=discord.ButtonStyle.secondary, disabled=True)
    async def counter(
        self, interaction: discord.Interaction[Any], _button: discord.ui.Button[Paginator]
    ) -> None:  # pragma: no cover - always disabled
        await interaction.response.defer()

    @discord.ui.button(label=NEXT, emoji="▶️", style=discord.ButtonStyle.secondary)
    async def next(
        self, interaction: discord.Interaction[Any], _button: discord.ui.Button[Paginator]
    ) -> None:
        await self.show(interaction, self.index + 1)

    async def on_timeout(self) -> None:
        if len(self.pages) == 1:
            return  # only the page's own components, which never expire
        for item in (self.previous, self.counter, self.next):
            item.disabled = True
        try:
            await respond.edit_reply(self._interaction, self._message, view=self)
        except discord.HTTPException as exc:
            # Deleted message or expired token: the buttons are gone anyway.
            log.info("could not disable paginator buttons: %s", exc)
