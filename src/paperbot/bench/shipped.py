"""An app over a throwaway database holding the shipped corpus: what the
quality benches (and `scripts/match_signals.py`) measure against."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path

from paperbot.config import (
    BUNDLED_CORPUS,
    CorpusSettings,
    DatabaseSettings,
    Settings,
    load_settings,
)
from paperbot.services.app import App

__all__ = ["shipped_corpus_app"]


@asynccontextmanager
async def shipped_corpus_app(name: str, now: datetime) -> AsyncIterator[App]:
    """The configured settings (vocabulary, search) over a fresh database
    named `name` in a temporary folder, loaded with the shipped corpus."""
    configured = load_settings()
    with tempfile.TemporaryDirectory() as tmp:
        app = await App.open(_settings(configured, Path(tmp) / f"{name}.sqlite3"))
        try:
            await app.corpus.load(
                [BUNDLED_CORPUS], default_area=configured.corpus.default_area, now=now
            )
            yield app
        finally:
            await app.close()


def _settings(configured: Settings, database: Path) -> Settings:
    return configured.model_copy(
        update={
            "database": DatabaseSettings(path=database),
            "corpus": CorpusSettings(
                path=BUNDLED_CORPUS, default_area=configured.corpus.default_area
            ),
        }
    )
