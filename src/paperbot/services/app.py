"""The application: settings, the database and the feature services.

The bot and the CLI both build one `App`, so they run the same use-cases.
"""

from __future__ import annotations

from dataclasses import dataclass

from paperbot.config import Settings
from paperbot.services.digest import DigestService, subscriber_audience
from paperbot.services.search import SearchService
from paperbot.services.subscriptions import SubscriptionService
from paperbot.services.topics import TopicService, load_vocabulary
from paperbot.storage.db import Database


@dataclass
class App:
    settings: Settings
    db: Database
    topics: TopicService
    subscriptions: SubscriptionService
    digest: DigestService
    search: SearchService

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
            db=db,
            topics=topics,
            subscriptions=subscriptions,
            digest=DigestService(db, settings, subscriber_audience(subscriptions)),
            # Topic aliases expand queries across languages (混合专家 <-> MoE).
            search=SearchService(db, settings.search, vocabulary.expansions()),
        )

    async def close(self) -> None:
        await self.db.close()
