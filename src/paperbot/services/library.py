"""A reader's own library: the papers they saved (🔖) in a server."""

from __future__ import annotations

import asyncio
from datetime import date, datetime

from paperbot.core.library_export import ExportFile, ExportFormat, export_saved
from paperbot.core.models import SavedPaper
from paperbot.storage import saved
from paperbot.storage.backend import Database


class LibraryService:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def toggle_saved(
        self, guild_id: int, user_id: int, paper_id: int, now: datetime
    ) -> bool | None:
        """Save or unsave (a second press undoes the first): True when the paper
        is saved now, False when it was unsaved, None when the paper is unknown."""
        return await saved.toggle(self._db, guild_id, user_id, paper_id, now)

    async def unsave(self, guild_id: int, user_id: int, paper_id: int) -> bool:
        """Remove a saved paper; False when it was not saved."""
        return await saved.remove(self._db, guild_id, user_id, paper_id)

    async def saved_ids(self, guild_id: int, user_id: int) -> set[int]:
        return await saved.saved_ids(self._db, guild_id, user_id)

    async def saved_papers(self, guild_id: int, user_id: int) -> list[SavedPaper]:
        """The reader's saved papers in this server, newest first."""
        return await saved.list_saved(self._db, guild_id, user_id)

    async def export(
        self, guild_id: int, user_id: int, fmt: ExportFormat, today: date
    ) -> ExportFile:
        """The reader's saved papers in this server as a file (newest first)."""
        saved = await self.saved_papers(guild_id, user_id)
        # Rendering thousands of papers is CPU work: keep it off the event loop.
        return await asyncio.to_thread(export_saved, saved, fmt, today)
