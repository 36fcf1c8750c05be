"""Small key/value state kept beside the data (e.g. the last command sync's hash)."""

from __future__ import annotations

from paperbot.storage import meta
from paperbot.storage.backend import Database


class StateService:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, key: str) -> str | None:
        return await meta.get_meta(self._db, key)

    async def set(self, key: str, value: str) -> None:
        await meta.set_meta(self._db, key, value)

    async def keys(self, prefix: str) -> list[str]:
        """Keys starting with `prefix`, sorted."""
        return await meta.meta_keys(self._db, prefix)

    async def delete(self, key: str) -> None:
        await meta.delete_meta(self._db, key)
