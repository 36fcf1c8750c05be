"""/saved and /mydata as Discord-safe plain data (pure).

Saved papers are shown like search results (`core.search_render`), five
to a page, each page knowing which papers it shows so the bot can put an
Unsave button under each. "My data" is a short list of what is stored,
with the JSON export as a file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from paperbot.core import limits
from paperbot.core.lazy import LazySequence
from paperbot.core.library_export import ExportFile
from paperbot.core.models import SavedPaper
from paperbot.core.render import MessageData, Translate, trim, untranslated
from paperbot.core.search_render import ResultItem, result_embed, safe_text

# Fixed texts in English; the library cog's ZH_CN translates them.
SAVED_HEADER = "🔖 Your saved papers in this server: {count} · page {page}/{pages}"
NO_SAVED = (
    "You have no saved papers in this server yet: press 🔖 Save under a digest pick "
    "or a search result."
)
UNSAVE_LABEL = "Unsave {number}"
UNSAVED = "Removed **{title}** from your saved papers."
NOT_YOUR_LIST = "That is someone else's list of saved papers: /saved list shows yours."
NOT_SAVED = "That paper is not in your saved papers any more."
EXPORTED = "🔖 {count} saved papers, as {format}."
NOTHING_TO_EXPORT = "You have no saved papers in this server to export."

MYDATA_HEADER = "What paperbot stores about you in this server:"
MYDATA_NOTHING = "paperbot stores nothing about you in this server."
MYDATA_FOOTER = (
    "`/mydata export` sends all of it as a JSON file; `/mydata delete` removes all of it."
)
MYDATA_EXPORTED = "Everything paperbot stores about you in this server, as JSON."
DELETE_CONFIRM = (
    "Delete everything paperbot stores about you in this server? This cannot be undone."
)
DELETE_BUTTON = "Delete my data"
CANCEL_BUTTON = "Cancel"
DELETED = "Deleted everything paperbot stored about you in this server:"
DELETED_NOTHING = "There was nothing to delete: paperbot stores nothing about you here."
CANCELLED = "Nothing was deleted."
NOT_YOUR_DATA = "Only the person who asked can confirm this."

SAVED_PAGE_SIZE = 5


class SavedPages(LazySequence[MessageData]):
    """The reader's saved papers, newest first, `page_size` to a page."""

    def __init__(
        self,
        saved: Sequence[SavedPaper],
        *,
        page_size: int = SAVED_PAGE_SIZE,
        tr: Translate = untranslated,
    ) -> None:
        if not saved:
            raise ValueError("no saved papers to page through")
        self._saved = tuple(saved)
        self._size = max(1, min(page_size, limits.EMBEDS_PER_MESSAGE))
        self._tr = tr
        super().__init__(-(-len(self._saved) // self._size), self._render)

    @property
    def page_size(self) -> int:
        return self._size

    def on_page(self, number: int) -> list[SavedPaper]:
        """The saved papers page `number` shows, in order."""
        return list(self._saved[number * self._size : (number + 1) * self._size])

    def _render(self, number: int) -> MessageData:
        total = len(self._saved)
        budget = (limits.EMBED_TOTAL_MAX - 100) // self._size
        embeds = tuple(
            result_embed(
                ResultItem(item.paper, ()),
                position=number * self._size + i + 1,
                total=total,
                budget=budget,
                tr=self._tr,
            )
            for i, item in enumerate(self.on_page(number))
        )
        content = self._tr(SAVED_HEADER).format(count=total, page=number + 1, pages=len(self))
        return MessageData(content=content, embeds=embeds)


def unsaved_text(title: str, tr: Translate = untranslated) -> str:
    return tr(UNSAVED).format(title=safe_text(trim(title, 200)))


def _listing(rows: Sequence[tuple[str, int]], tr: Translate) -> list[str]:
    return [f"• {tr(label)}: {count}" for label, count in rows if count]


def mydata_summary(rows: Sequence[tuple[str, int]], tr: Translate = untranslated) -> str:
    """(label, count) per kind of data -> the /mydata answer."""
    listed = _listing(rows, tr)
    if not listed:
        return tr(MYDATA_NOTHING)
    return "\n".join([tr(MYDATA_HEADER), *listed, "", tr(MYDATA_FOOTER)])


def delete_prompt(rows: Sequence[tuple[str, int]], tr: Translate = untranslated) -> str:
    return "\n".join([tr(DELETE_CONFIRM), *_listing(rows, tr)])


def deleted_summary(rows: Sequence[tuple[str, int]], tr: Translate = untranslated) -> str:
    listed = _listing(rows, tr)
    if not listed:
        return tr(DELETED_NOTHING)
    return "\n".join([tr(DELETED), *listed])


def mydata_file(
    guild_id: int, user_id: int, data: dict[str, list[dict[str, Any]]], now: datetime
) -> ExportFile:
    """The /mydata export: one JSON document, snowflakes as strings (as Discord writes them)."""
    document = {
        "guild_id": str(guild_id),
        "user_id": str(user_id),
        "exported_at": now.isoformat(),
        "data": data,
    }
    text = json.dumps(document, ensure_ascii=False, indent=2, default=str) + "\n"
    return ExportFile(f"paperbot-mydata-{now.date().isoformat()}.json", text.encode("utf-8"))
