"""The application: settings, the database and the feature services.

The bot and the CLI both build one `App`, so they run the same use-cases.
"""

from __future__ import annotations

from dataclasses import dataclass

from paperbot.config import Settings
from paperbot.storage.db import Database


@dataclass
class App:
    settings: Settings
    db: Database

    @classmethod
    async def open(cls, settings: Settings) -> App:
        db = await Database.open(settings.database.path)
        return cls(settings=settings, db=db)

    async def close(self) -> None:
        await self.db.close()
