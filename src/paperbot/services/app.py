"""The application: settings, the database and the feature services.

The bot and the CLI both build one `App`, so they run the same use-cases.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path

from paperbot.config import SearchSettings, Settings
from paperbot.core.search import QueryTables
from paperbot.core.topics import Vocabulary
from paperbot.services.corpus import CorpusService
from paperbot.services.digest import DigestService, subscriber_audience
from paperbot.services.digest_archive import DigestArchiveService
from paperbot.services.feedback import FeedbackService
from paperbot.services.library import LibraryService
from paperbot.services.paper_texts import PaperTexts
from paperbot.services.personal_digest import PersonalDigestService
from paperbot.services.search import SearchService
from paperbot.services.state import StateService
from paperbot.services.subscriptions import SubscriptionService
from paperbot.services.topics import TopicService, load_vocabulary
from paperbot.services.user_data import UserDataService
from paperbot.services.workers import shutdown_workers
from paperbot.storage import CorruptDatabase, Database, StorageError
from paperbot.storage import open_database as open_store

__all__ = [
    "App",
    "CorruptDatabase",
    "Prepared",
    "StorageError",
    "open_database",
    "vocabulary_search",
]


async def open_database(target: str | Path) -> Database:
    """The migrated database alone (a file path or a PostgreSQL URL), for
    tools that build their own services (the benchmarks); everything else
    opens an `App`."""
    return await open_store(target)


def scratch_postgres(url: str) -> AbstractAsyncContextManager[str]:
    """A throwaway schema in the PostgreSQL at `url` (the benchmarks' backend
    comparison): yields its URL, drops it at the end."""
    from paperbot.storage.postgres import scratch_schema  # asyncpg is an extra

    return scratch_schema(url)


@dataclass(frozen=True, slots=True)
class Prepared:
    """What `App.prepare` did: papers indexed, "built" or "stored", seconds."""

    papers: int
    index_source: str
    seconds: float
    index_seconds: float = 0.0
    topics_source: str = "skipped"
    """How the topic corpus became current: "appended", "stored", "built",
    "current" (nothing to do) or "skipped" (`topics=False`)."""
    topics_seconds: float = 0.0
    """Seconds to the topic matches stored (side by side with the index when
    `keep_topics=False`: then the two overlap)."""
    texts_seconds: float = 0.0
    """Of both: reading the papers and normalising their texts once (shared)."""


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
    feedback: FeedbackService
    archive: DigestArchiveService
    personal: PersonalDigestService
    user_data: UserDataService
    _closed: bool = field(default=False, init=False, repr=False)

    @classmethod
    async def open(cls, settings: Settings) -> App:
        # A malformed vocabulary is a configuration error (TopicsConfigError,
        # a ConfigError): raise it before the database is opened.
        vocabulary = load_vocabulary(settings.topics.path)
        db = await open_store(
            settings.database.target, lock_wait_seconds=settings.database.lock_wait_seconds
        )
        try:
            return cls._over(settings, vocabulary, db)
        except BaseException:
            # The connection's thread would keep the process alive at exit.
            await db.close()
            raise

    @classmethod
    def _over(cls, settings: Settings, vocabulary: Vocabulary, db: Database) -> App:
        """Every service over the open database."""
        topics = TopicService(db, vocabulary)
        subscriptions = SubscriptionService(db, topics)
        digest = DigestService(db, settings, subscriber_audience(subscriptions))
        search = vocabulary_search(db, settings.search, vocabulary)
        feedback = FeedbackService(db, topics, search, settings.feedback)
        digest.personalizer = feedback.personalization
        return cls(
            settings=settings,
            _db=db,
            topics=topics,
            subscriptions=subscriptions,
            digest=digest,
            search=search,
            corpus=CorpusService(db),
            state=StateService(db),
            library=LibraryService(db),
            feedback=feedback,
            archive=DigestArchiveService(db),
            personal=PersonalDigestService(db, settings, digest, subscriptions),
            user_data=UserDataService(db),
        )

    async def prepare(self, *, topics: bool = True, keep_topics: bool = True) -> Prepared:
        """Make the search index current and, with `topics`, the topic corpus
        and every vocabulary topic's matches (both stored for the next start,
        both following a load that only added papers incrementally), CPU
        work in the worker process: what "ready" means for the bot, and the
        end of `paperbot load` (`keep_topics=False`: stored for the next
        start, not kept in this process)."""
        start = time.perf_counter()
        if topics and not keep_topics:
            return await self._prepare_stored(start)
        if keep_topics:
            live = (await self.search.refresh()).live
        else:
            # Not kept in this process: an append is stored as a segment
            # without reading the stored index.
            live = (await self.search.prepare_stored()).papers
        index_seconds = time.perf_counter() - start
        topics_source = "skipped"
        if topics:
            self.topics.last_source = None
            await self.topics.warm()
            topics_source = self.topics.last_source or "current"
        status = self.search.last_status
        source = status.source if status is not None else "current"
        seconds = time.perf_counter() - start
        return Prepared(
            live, source, seconds, index_seconds, topics_source, seconds - index_seconds
        )

    async def _prepare_stored(self, start: float) -> Prepared:
        """`prepare(keep_topics=False)`: the search index and the topic
        matches side by side (one worker process each), from the papers'
        texts read and normalised once."""
        texts = PaperTexts(self._db, self.corpus.take_early_texts())

        async def index_part() -> tuple[int, float]:
            # An append is stored as a segment without reading the stored
            # index (nor the texts: they are read only for a full build).
            status = await self.search.prepare_stored(texts.store_search_index)
            seconds = time.perf_counter() - start
            # Its worker has ended (and no idle one replaces it: `workers`):
            # the topic worker may use its core.
            texts.mark_free_core()
            return status.papers, seconds

        async def topics_part() -> tuple[str, float]:
            source = await self.topics.prepare_stored(texts)
            return source, time.perf_counter() - start

        index_task = asyncio.create_task(index_part())
        topics_task = asyncio.create_task(topics_part())
        try:
            (size, index_seconds), (topics_source, topics_seconds) = await asyncio.gather(
                index_task, topics_task
            )
        except BaseException:
            # One failed (or the load was cancelled): stop the other too.
            index_task.cancel()
            topics_task.cancel()
            raise
        finally:
            texts.close()
        status = self.search.last_status
        return Prepared(
            size,
            status.source if status is not None else "current",
            time.perf_counter() - start,
            index_seconds,
            topics_source,
            topics_seconds,
            texts.seconds,
        )

    async def close(self) -> None:
        """Close the database; a second call does nothing (shutdown paths may overlap)."""
        if self._closed:
            return
        self._closed = True
        await self.search.flush(closing=True)  # a rebuild or save may use a worker
        self.corpus.discard_early_texts()
        # The worker processes exit (freeing what a 100k-paper build held)
        # while the database closes (checkpointing its write-ahead log).
        stopping = asyncio.create_task(asyncio.to_thread(shutdown_workers))
        try:
            await self._db.close()
        finally:
            await stopping


def vocabulary_search(
    db: Database, settings: SearchSettings, vocabulary: Vocabulary
) -> SearchService:
    """The search service as the bot runs it: the vocabulary's topic aliases
    and bilingual concepts expand queries across languages (混合专家 <->
    MoE, 低秩 <-> low-rank). `bench search` measures this one too."""
    concepts = [(c.en, c.zh) for c in vocabulary.concepts]
    return SearchService(db, settings, QueryTables.of(vocabulary.expansions(), concepts))
