"""The application: settings, the database and the feature services.

The bot and the CLI both build one `App`, so they run the same use-cases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from paperbot.config import Settings
from paperbot.core.search import bilingual_table
from paperbot.services.corpus import CorpusService
from paperbot.services.digest import DigestService, subscriber_audience
from paperbot.services.library import LibraryService
from paperbot.services.search import SearchService
from paperbot.services.state import StateService
from paperbot.services.subscriptions import SubscriptionService
from paperbot.services.topics import TopicService, load_vocabulary
from paperbot.services.user_data import UserDataService
from paperbot.storage import CorruptDatabase, Database, StorageError

__all__ = ["App", "CorruptDatabase", "StorageError", "open_database"]


async def open_database(path: Path) -> Database:
    """The migrated database alone, for tools that build their own services
    (the benchmarks); everything else opens an `App`."""
    return await Database.open(path)


@dataclass
class App:
    """Every service over one database. The database itself stays private:
    callers go through the services."""

    settings: Settings
    _db: Database = field(repr=False)
    topics: TopicService
    subscriptions: SubscriptionService
    digest: DigestService
    search: SearchService
    corpus: CorpusService
    state: StateService
    library: LibraryService
    user_data: UserDataService
    _closed: bool = field(default=False, init=False, repr=False)

    @classmethod
    async def open(cls, settings: Settings) -> App:
        # A malformed vocabulary is a configuration error (TopicsConfigError,
        # a ConfigError): raise it before the database is opened.
        vocabulary = load_vocabulary(settings.topics.path)
        db = await Database.open(
            settings.database.path, lock_wait_seconds=settings.database.lock_wait_seconds
        )
        topics = TopicService(db, vocabulary)
        subscriptions = SubscriptionService(db, topics)
        return cls(
            settings=settings,
            _db=db,
            topics=topics,
            subscriptions=subscriptions,
            digest=DigestService(db, settings, subscriber_audience(subscriptions)),
            # Topic aliases and bilingual concepts expand queries across
            # languages (混合专家 <-> MoE, 低秩 <-> low-rank).
            search=SearchService(
                db,
                settings.search,
                bilingual_table(
                    vocabulary.expansions(), [(c.en, c.zh) for c in vocabulary.concepts]
                ),
            ),
            corpus=CorpusService(db),
            state=StateService(db),
            library=LibraryService(db),
            user_data=UserDataService(db),
        )

    async def close(self) -> None:
        """Close the database; a second call does nothing (shutdown paths may overlap)."""
        if self._closed:
            return
        self._closed = True
        await self._db.close()
