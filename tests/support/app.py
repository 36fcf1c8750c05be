"""What tests build an App from: the fixed clock, the repository, Settings."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from paperbot.config import (
    BUNDLED_CORPUS,
    BUNDLED_TOPICS,
    CorpusSettings,
    DatabaseSettings,
    Settings,
    TopicsSettings,
)

#: "Now" for every test that does not test the clock.
FIXED_NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
REPO = Path(__file__).parents[2]


def settings_for(database: Path, **sections: Any) -> Settings:
    """Settings with the bundled corpus and the repo's topics, not the
    developer's config file; `sections` override (e.g. `search=...`)."""
    return Settings(
        database=DatabaseSettings(path=database),
        corpus=CorpusSettings(path=BUNDLED_CORPUS),
        topics=TopicsSettings(path=BUNDLED_TOPICS),
        **sections,
    )
