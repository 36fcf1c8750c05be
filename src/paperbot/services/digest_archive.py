"""The digest archive: a server's past digests, for `/digest history` and
`paperbot digest history`."""

from __future__ import annotations

from datetime import date

from paperbot.core.digest_history import ArchivedPost
from paperbot.storage import digest_history as store
from paperbot.storage.backend import Database

# Posts one archive read returns at most (about 100 pages of /digest history).
MAX_POSTS = 500


class DigestArchiveService:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def history(
        self, guild_id: int, *, until: date | None = None, limit: int = MAX_POSTS
    ) -> list[ArchivedPost]:
        """The server's delivered digests, newest first, from `until` (a
        server-local date) back; failed or unconfirmed posts are left out."""
        return await store.confirmed_posts(self.db, guild_id, until=until, limit=limit)
