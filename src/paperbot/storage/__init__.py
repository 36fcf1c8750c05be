"""The storage package: the only place in paperbot that speaks SQL.

Every `sqlite3.Error` leaves it as a `StorageError` (`ConstraintError` for a
broken constraint), so the layers above never handle SQLite's own errors.
"""

from paperbot.storage.db import ConstraintError, Database, StorageError

__all__ = ["ConstraintError", "Database", "StorageError"]
