"""Fixtures shared by every test module."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from paperbot.config import BUNDLED_CORPUS
from paperbot.services.corpus import load_corpus
from paperbot.storage.db import Database

FIXED_NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.fixture
def bundled_corpus() -> Path:
    return BUNDLED_CORPUS


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    """A fresh, migrated database file in tmp_path."""
    database = await Database.open(tmp_path / "paperbot.sqlite3")
    yield database
    await database.close()


@pytest.fixture
async def loaded_db(db: Database, bundled_corpus: Path) -> Database:
    """The database with the shipped corpus loaded."""
    await load_corpus(db, [bundled_corpus], default_area="预训练", now=FIXED_NOW)
    return db
