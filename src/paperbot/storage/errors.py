"""Both backends' errors: what leaves the storage package when the database fails."""

from __future__ import annotations

from pathlib import Path


class StorageError(Exception):
    """The database cannot be opened, is newer than this code, or a statement failed.

    Every driver error (sqlite3, asyncpg) leaving the storage package is
    turned into this, so the layers above never need to know which store it
    is; `str()` is one clear line.
    """


class ConstraintError(StorageError):
    """A write broke a UNIQUE, CHECK or foreign key constraint."""


class CorruptDatabase(StorageError):
    """The database file is damaged: not an SQLite file, or failing its check."""

    def __init__(self, path: Path, detail: str) -> None:
        # SQLite's report spans lines ("*** in database main ***\nPage 62: ..."): one line.
        detail = " ".join(detail.replace("*** in database main ***", "").split())
        super().__init__(
            f"database {path} is damaged ({detail}): stop paperbot, move the file aside and "
            "restore your last backup (README, 'Backups and restore'); "
            "`paperbot doctor` shows the details"
        )
        self.path = path


def closed_database(location: str) -> StorageError:
    """What either backend raises for a use after `close()`: the same line."""
    return StorageError(f"database {location} is closed")
