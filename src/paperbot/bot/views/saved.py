"""The /saved list: the paginator over `SavedPages` plus an Unsave button per paper.

Unsave buttons outlive the paginator and the process: they are handled by
`UnsaveButton`, a `discord.ui.DynamicItem` the bot registers at start-up,
whose custom id (`paperbot:unsave:<paper id>:<page>`) carries all it needs.
Pressing one removes the paper and redraws the list from the database on
that page, so it works the same after a restart as before it.

The paginator shows the buttons as plain, non-dispatchable buttons with the
same custom ids: a `DynamicItem` inside a live view would be unregistered
from the whole bot when that view stops (discord.py's `ViewStore.remove_view`
drops the view's dynamic templates), and Unsave would die with the timeout.
"""

from __future__ import annotations

import logging
import re
import weakref
from typing import TYPE_CHECKING, Any

import discord

from paperbot.bot import errors
from paperbot.bot.embeds import message_kwargs
from paperbot.bot.respond import (
    localize,
    reply,
    thinking_when_slow,
    translator,
    update_message,
)
from paperbot.bot.views.paginator import Paginator
from paperbot.core.library_render import (
    NO_SAVED,
    NOT_SAVED,
    NOT_YOUR_LIST,
    UNSAVE_LABEL,
    SavedPages,
    unsaved_text,
)
from paperbot.core.render import MessageData, Translate, untranslated

if TYPE_CHECKING:
    from paperbot.bot.client import PaperBot

log = logging.getLogger(__name__)

UNSAVE_PREFIX = "paperbot:unsave:"
UNSAVE_TEMPLATE = re.escape(UNSAVE_PREFIX) + r"(?P<paper_id>[0-9]{1,19}):(?P<page>[0-9]{1,4})"
_UNSAVE_ROW = 1

# Every /saved list still turning pages in this process, to retire them when
# an Unsave redraws one (the others would page through stale papers).
_LIVE: weakref.WeakSet[SavedPaginator] = weakref.WeakSet()


def unsave_custom_id(paper_id: int, page: int) -> str:
    return f"{UNSAVE_PREFIX}{paper_id}:{page}"


class _UnsaveShown(discord.ui.Button["SavedPaginator"]):
    """How an Unsave button sits in the paginator: shown, but dispatched to
    `UnsaveButton` (the dynamic item), never to the view."""

    def is_dispatchable(self) -> bool:
        return False


class SavedPaginator(Paginator):
    """Previous/Next over the saved papers, with Unsave buttons for the page
    shown. A timeout disables only the page buttons (`Paginator.on_timeout`):
    Unsave keeps working (a dynamic item)."""

    def __init__(
        self,
        pages: SavedPages,
        *,
        guild_id: int,
        owner_id: int,
        tr: Translate = untranslated,
        index: int = 0,
    ) -> None:
        self.saved_pages = pages
        self.guild_id = guild_id
        super().__init__(pages, owner_id=owner_id, tr=tr)
        self.index = max(0, min(index, len(pages) - 1))
        if len(pages) == 1:
            # Nothing to turn: only the Unsave buttons.
            for nav in (self.previous, self.counter, self.next):
                self.remove_item(nav)
        self._sync_buttons()
        _LIVE.add(self)

    def _sync_buttons(self) -> None:
        super()._sync_buttons()
        for item in self.children:
            if isinstance(item, _UnsaveShown):
                self.remove_item(item)
        first = self.index * self.saved_pages.page_size
        for offset, saved in enumerate(self.saved_pages.on_page(self.index)):
            label = self._tr(UNSAVE_LABEL).format(number=first + offset + 1)
            self.add_item(
                _UnsaveShown(
                    label=label,
                    emoji="🗑️",
                    style=discord.ButtonStyle.secondary,
                    custom_id=unsave_custom_id(saved.paper.id, self.index),
                    row=_UNSAVE_ROW,
                )
            )

    async def start(self, interaction: discord.Interaction[Any], *, ephemeral: bool = True) -> None:
        """Send the first page, always with its Unsave buttons."""
        self._interaction = interaction
        self._message = await reply(interaction, self.page, ephemeral=ephemeral, view=self)
        if len(self.pages) == 1:
            self.stop()

    async def redraw(self, interaction: discord.Interaction[Any], notice: str) -> None:
        """Replace the message a button was pressed on with this list, `notice` first."""
        self._interaction = interaction
        page = self.page
        shown = MessageData(content=f"{notice}\n{page.content}", embeds=page.embeds)
        await update_message(interaction, **message_kwargs(shown), view=self)
        if len(self.pages) == 1:
            self.stop()


class UnsaveButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=UNSAVE_TEMPLATE):
    """An Unsave button under a saved paper, in any /saved list ever sent."""

    def __init__(self, paper_id: int, page: int) -> None:
        super().__init__(discord.ui.Button(custom_id=unsave_custom_id(paper_id, page)))
        self.paper_id = paper_id
        self.page = page

    @classmethod
    async def from_custom_id(
        cls,
        _interaction: discord.Interaction[Any],
        _item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> UnsaveButton:
        return cls(int(match["paper_id"]), int(match["page"]))

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        # The list is ephemeral, so only its owner sees it; should anyone else
        # press a button all the same, it must not act on (or show) their list.
        metadata = interaction.message.interaction_metadata if interaction.message else None
        if metadata is None or metadata.user.id == interaction.user.id:
            return True
        await errors.send_ephemeral(interaction, localize(interaction, NOT_YOUR_LIST))
        return False

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        # discord.py only logs what a dynamic item raises: send it to the one handler.
        try:
            await unsave_and_redraw(interaction, self.paper_id, self.page)
        except Exception as exc:  # noqa: BLE001 - every error reaches the handler
            await errors.handle_error(interaction, exc)


async def unsave_and_redraw(
    interaction: discord.Interaction[PaperBot], paper_id: int, page: int
) -> None:
    """Remove the paper from the presser's saved papers (in this server) and
    redraw their list, from the database, on the same page."""
    guild_id = interaction.guild_id
    if guild_id is None:  # /saved is guild-only, so its buttons are too
        return
    library = interaction.client.app.library
    user_id = interaction.user.id
    tr = translator(interaction)
    async with thinking_when_slow(interaction, updating=True):
        saved = await library.saved_papers(guild_id, user_id)
        target = next((s for s in saved if s.paper.id == paper_id), None)
        if target is not None:
            await library.unsave(guild_id, user_id, paper_id)
            saved.remove(target)
    notice = unsaved_text(target.paper.title, tr) if target else tr(NOT_SAVED)
    for live in list(_LIVE):
        if live.guild_id == guild_id and live.owner_id == user_id:
            live.stop()
    if not saved:
        gone = MessageData(content=f"{notice}\n{tr(NO_SAVED)}")
        await update_message(interaction, **message_kwargs(gone), view=None)
        return
    pages = SavedPages(saved, tr=tr)
    view = SavedPaginator(pages, guild_id=guild_id, owner_id=user_id, tr=tr, index=page)
    await view.redraw(interaction, notice)
