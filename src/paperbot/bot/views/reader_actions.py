"""👍 👎 🔖 and "More like this" under every digest pick and search result.

Persistent without state: every component is a `discord.ui.DynamicItem`
whose custom id carries what a press needs (`pb:r:up:123` = 👍 on paper
123; a select menu `pb:rs:up` carries the paper as the chosen value). The
bot registers the two classes at start-up (`bot.add_dynamic_items`), so a
press on a message posted before a restart still works, and nothing is
kept per message.

Layout within Discord's 5 action rows: with at most `rows` papers, one row
of four buttons per paper (`#n 👍`, 👎, 🔖 Save, More like this), in embed
order. With more papers (a 10-pick digest; a search page of 5 under the
paginator's row), one select menu per action, each listing every paper of
the message: 4 rows, every paper reachable by every action in two clicks.
Buttons alone cannot fit (10 papers x 4 actions = 40 > 25 buttons), and
mixing buttons for some papers with menus for the rest would make the
same action look different from one pick to the next.

Anyone may press (each reader votes for themselves): the answer is
ephemeral and the public message never changes.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, Literal

import discord

from paperbot.bot import errors
from paperbot.bot.embeds import message_kwargs
from paperbot.bot.respond import localize, reply, thinking_when_slow, translator
from paperbot.clock import utc_now
from paperbot.core.render import MessageData
from paperbot.core.similar_render import SimilarItem, render_similar

if TYPE_CHECKING:
    from paperbot.bot.client import PaperBot

log = logging.getLogger(__name__)

Action = Literal["up", "down", "save", "more"]
ACTIONS: tuple[Action, ...] = ("up", "down", "save", "more")
MAX_ROWS = 5

LIKED = "Noted: more papers like this for you. 👍"
DISLIKED = "Noted: fewer papers like this for you; this one won't be picked for you again. 👎"
UNVOTED = "Your vote on this paper is removed."
SAVED = "Saved 🔖 (your saved papers: /saved)."
UNSAVED = "Removed from your saved papers."
GONE = "That paper is no longer loaded."
SAVE_LABEL = "Save · 收藏"
MORE_LABEL = "More like this · 相似论文"
PLACEHOLDERS: dict[Action, str] = {
    "up": "👍 More like… · 喜欢",
    "down": "👎 Not for me… · 不感兴趣",
    "save": "🔖 Save… · 收藏",
    "more": "🔎 More like this… · 相似论文",
}
_EMOJI: dict[Action, str] = {"up": "👍", "down": "👎", "save": "🔖", "more": "🔎"}


def _button(action: Action, paper_id: int, number: int, row: int | None) -> discord.ui.Button[Any]:
    label = {"up": f"#{number}", "down": None, "save": SAVE_LABEL, "more": MORE_LABEL}[action]
    style = discord.ButtonStyle.primary if action == "more" else discord.ButtonStyle.secondary
    return discord.ui.Button(
        style=style,
        label=label,
        emoji=_EMOJI[action],
        custom_id=f"pb:r:{action}:{paper_id}",
        row=row,
    )


class ReaderButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pb:r:(?P<action>up|down|save|more):(?P<paper>[0-9]{1,19})",
):
    def __init__(self, action: Action, paper_id: int, number: int = 1, row: int | None = None):
        super().__init__(_button(action, paper_id, number, row), row=row)
        self.action: Action = action
        self.paper_id = paper_id

    @classmethod
    async def from_custom_id(
        cls,
        _interaction: discord.Interaction[Any],
        _item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ReaderButton:
        action: Action = match["action"]  # type: ignore[assignment]
        return cls(action, int(match["paper"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await act(interaction, self.action, self.paper_id)


class ReaderSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"pb:rs:(?P<action>up|down|save|more)",
):
    def __init__(
        self,
        action: Action,
        options: list[discord.SelectOption] | None = None,
        row: int | None = None,
    ) -> None:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"pb:rs:{action}",
            placeholder=PLACEHOLDERS[action],
            options=options or [discord.SelectOption(label="-", value="0")],
            min_values=1,
            max_values=1,
            row=row,
        )
        super().__init__(select, row=row)
        self.action: Action = action

    @classmethod
    async def from_custom_id(
        cls,
        _interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ReaderSelect:
        action: Action = match["action"]  # type: ignore[assignment]
        options = list(item.options) if isinstance(item, discord.ui.Select) else None
        return cls(action, options)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        if values and values[0].isdigit():
            await act(interaction, self.action, int(values[0]))


def reader_items(
    message: MessageData, rows: int = MAX_ROWS, first_row: int = 0
) -> list[discord.ui.Item[Any]]:
    """The components for the message's papers within `rows` action rows,
    from row `first_row` on (rows above it belong to someone else)."""
    papers = message.paper_ids
    if not papers or rows < 1:
        return []
    if len(papers) <= rows:
        return [
            ReaderButton(action, paper_id, number, row=first_row + number - 1)
            for number, paper_id in enumerate(papers, start=1)
            for action in ACTIONS
        ]
    if rows < len(ACTIONS):
        return []
    titles = [e.title for e in message.embeds]
    options = [
        discord.SelectOption(
            label=f"#{n} {titles[n - 1] if n - 1 < len(titles) else pid}"[:100], value=str(pid)
        )
        for n, pid in enumerate(papers[:25], start=1)
    ]
    return [ReaderSelect(action, options, row=first_row + i) for i, action in enumerate(ACTIONS)]


def reader_view(message: MessageData, rows: int = MAX_ROWS) -> discord.ui.View | None:
    """A view holding only the reader components (None when there are none)."""
    items = reader_items(message, rows)
    if not items:
        return None
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


async def act(interaction: discord.Interaction[Any], action: Action, paper_id: int) -> None:
    """One press, answered privately; errors go to the one error handler."""
    try:
        if action == "more":
            await _more_like(interaction, paper_id)
        elif action == "save":
            await _save(interaction, paper_id)
        else:
            await _vote(interaction, paper_id, 1 if action == "up" else -1)
    except Exception as exc:  # noqa: BLE001 - every failure goes to the one handler
        await errors.handle_error(interaction, exc)


def _bot(interaction: discord.Interaction[Any]) -> PaperBot:
    return interaction.client  # type: ignore[no-any-return]


async def _vote(interaction: discord.Interaction[Any], paper_id: int, value: int) -> None:
    app = _bot(interaction).app
    # A digest just posted draws many presses at once.
    async with thinking_when_slow(interaction):
        outcome = await app.feedback.vote(
            interaction.guild_id or 0, interaction.user.id, paper_id, value, utc_now()
        )
    if outcome is None:
        text = GONE
    elif outcome == "removed":
        text = UNVOTED
    else:
        text = LIKED if value > 0 else DISLIKED
    await reply(interaction, localize(interaction, text))


async def _save(interaction: discord.Interaction[Any], paper_id: int) -> None:
    app = _bot(interaction).app
    async with thinking_when_slow(interaction):
        saved = await app.library.toggle_saved(
            interaction.guild_id or 0, interaction.user.id, paper_id, utc_now()
        )
    text = GONE if saved is None else SAVED if saved else UNSAVED
    await reply(interaction, localize(interaction, text))


async def similar_message(
    interaction: discord.Interaction[Any], paper_id: int, limit: int = 5
) -> MessageData | None:
    """The "more like this" answer for a paper; None when it is not loaded."""
    app = _bot(interaction).app
    found = await app.corpus.get_papers([paper_id])
    if not found:
        return None
    corpus = await app.digest.corpus_arrays()
    similar = await app.feedback.similar(corpus, paper_id, limit)
    items = [SimilarItem(s.paper, s.score, s.shared) for s in similar]
    return render_similar(found[0], items, translator(interaction))


async def _more_like(interaction: discord.Interaction[Any], paper_id: int) -> None:
    await interaction.response.defer(ephemeral=True, thinking=True)
    message = await similar_message(interaction, paper_id)
    if message is None:
        await reply(interaction, localize(interaction, GONE))
        return
    await send_with_actions(interaction, message)


async def send_with_actions(interaction: discord.Interaction[Any], message: MessageData) -> None:
    """An ephemeral answer listing papers, with the reader components."""
    view = reader_view(message)
    kwargs = message_kwargs(message)
    if view is not None:
        kwargs["view"] = view
    if interaction.response.is_done():
        await interaction.followup.send(**kwargs, ephemeral=True)
    else:
        await interaction.response.send_message(**kwargs, ephemeral=True)
