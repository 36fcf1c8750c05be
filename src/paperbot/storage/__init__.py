"""The storage package: the only place in paperbot that speaks SQL."""

from paperbot.storage.db import Database, StorageError

__all__ = ["Database", "StorageError"]
