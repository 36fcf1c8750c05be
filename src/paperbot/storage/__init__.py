"""The storage package: the only place in paperbot that speaks SQL.

Two backends, one interface (`Database`, storage/backend.py): SQLite by
default, PostgreSQL for a URL. Every driver error leaves the package as a
`StorageError` (`ConstraintError` for a broken constraint), so the layers
above never handle a driver's own errors.
"""

from paperbot.storage.backend import Database, open_database
from paperbot.storage.errors import ConstraintError, CorruptDatabase, StorageError

__all__ = ["ConstraintError", "CorruptDatabase", "Database", "StorageError", "open_database"]
