"""Search as a use-case: keep the in-memory index current, answer queries.

The index is built from the store off the event loop, persisted beside the
data tagged with the corpus version, and reused on the next start. A search
checks the corpus version: after a load changed papers the index catches up,
and while a large rebuild runs, the previous index answers instead of waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

import numpy as np

from paperbot.config import SearchSettings
from paperbot.core import search as core
from paperbot.core.search import ParsedQuery, QueryTables, parse_query
from paperbot.services import search_store
from paperbot.services.memory import release_free_memory
from paperbot.services.search_results import IndexStatus, SearchHit, SearchResult, problem_result
from paperbot.services.search_store import COMPACT_SHARE, WATERMARK
from paperbot.services.workers import WORKER_THRESHOLD, off_loop
from paperbot.storage import papers as paper_store
from paperbot.storage import search_index as index_store
from paperbot.storage.backend import Database
from paperbot.storage.db import StorageError

log = logging.getLogger(__name__)
# Re-exported: callers import the result types and constants from here.
__all__ = ["COMPACT_SHARE", "WATERMARK", "IndexStatus", "SearchHit", "SearchResult"]

P = ParamSpec("P")
R = TypeVar("R")
StoredBuild = Callable[[int], Awaitable[int]]  # a load's full build, stored by its worker

# How long a search waits for a rebuild after the corpus changed before it
# answers from the previous index (small corpora rebuild well within this).
FRESH_WAIT_SECONDS = 2.0
# Above this many papers ranking runs in a worker thread, keeping the event
# loop (Discord heartbeats, other commands) free while numpy works.
THREAD_THRESHOLD = 20_000
# A load shows up in search results at most this long after it committed.
VERSION_TTL_SECONDS = 1.0
# Results a caller can page through at most.
MAX_RESULTS = 50


def _log_failure(task: asyncio.Task[core.SearchIndex]) -> None:
    """A background rebuild nobody awaited any more still reports its failure."""
    if not task.cancelled() and task.exception() is not None:
        log.error("search index rebuild failed", exc_info=task.exception())


class SearchService:
    """Holds the current index; shared by the CLI and the bot."""

    def __init__(
        self,
        db: Database,
        settings: SearchSettings,
        tables: QueryTables | None = None,
    ) -> None:
        self._db = db
        self._settings = settings
        self._tables = tables or QueryTables()
        self._index: core.SearchIndex | None = None
        self._version = -1
        self._dictionary_read = False
        self._lock = asyncio.Lock()
        self._rebuild: asyncio.Task[core.SearchIndex] | None = None
        self.last_status: IndexStatus | None = None
        self._saving: asyncio.Task[None] | None = None
        self._seen_version = -1
        self._checked_at: float | None = None

    @property
    def settings(self) -> SearchSettings:
        return self._settings

    # ------------------------------------------------------------ index

    async def _corpus_version(self) -> int:
        """The corpus version, read at most every `VERSION_TTL_SECONDS`: a
        burst of searches shares one read instead of queueing one each."""
        now = time.monotonic()
        if self._checked_at is not None and now - self._checked_at < VERSION_TTL_SECONDS:
            return self._seen_version
        self._seen_version = await paper_store.corpus_version(self._db)
        self._checked_at = time.monotonic()
        return self._seen_version

    def forget_version(self) -> None:
        """Read the corpus version again at the next search (after a load)."""
        self._checked_at = None

    async def ensure_index(self) -> core.SearchIndex:
        """The current index: in memory, else the stored one, else built now."""
        version = await self._corpus_version()
        if self._index is not None and self._version == version:
            return self._index
        if self._index is None:
            return await self._refresh(version)
        # Stale: rebuild in the background, answer from the old index if the
        # rebuild takes longer than a search should.
        if self._rebuild is None or self._rebuild.done():
            self._rebuild = asyncio.create_task(self._refresh(version), name="search-rebuild")
            self._rebuild.add_done_callback(_log_failure)
        try:
            return await asyncio.wait_for(asyncio.shield(self._rebuild), FRESH_WAIT_SECONDS)
        except TimeoutError:
            log.info("search index rebuild still running; answering from the previous index")
            return self._index

    async def is_current(self) -> bool:
        """True when a search can start at once: the index in memory is current."""
        if self._index is None:
            return False
        return self._version == await self._corpus_version()

    async def refresh(self) -> core.SearchIndex:
        """Bring the index up to date now, waiting for any rebuild."""
        self.forget_version()
        version = await self._corpus_version()
        if self._index is not None and self._version == version:
            return self._index
        return await self._refresh(version)

    async def _refresh(self, version: int) -> core.SearchIndex:
        async with self._lock:
            if self._index is not None and self._version == version:
                return self._index
            start = time.perf_counter()
            index, source = None, "appended"
            if self._index is not None:
                index = await self._catch_up(self._index, self._version, version)
            if index is None:
                # With an index in memory only a stored one of this version (another's) wins.
                index, source = await self._load_stored(version, exact=self._index is not None)
            if index is None:
                index, source = await self._build_and_store(version), "built"
            if not self._dictionary_read:
                # The query dictionary is read once, here, off the event loop:
                # not by the first search that needs it.
                await asyncio.to_thread(core.load_dictionary)
                self._dictionary_read = True
            self._index, self._version = index, version
            self.last_status = IndexStatus(index.size, version, source, time.perf_counter() - start)
            log.info(
                "search index %s: %d papers (%d dead entries), corpus version %d, %.2fs",
                source,
                index.live,
                len(index.dead),
                version,
                self.last_status.seconds,
            )
            return index

    async def _catch_up(
        self, index: core.SearchIndex, covered: int, version: int
    ) -> core.SearchIndex | None:
        """`index` (current at corpus version `covered`) brought to `version`:
        the entries of papers changed or removed since marked dead, the new
        and changed papers appended, stored again in the background. A load
        that adds a page costs that page, not a rebuild. None (a full build,
        which compacts) once dead entries would pass `COMPACT_SHARE`."""
        if index.size == 0 or not 0 <= covered <= version:
            return None
        max_id = int(np.max(index.ids))
        changed = await index_store.changed_since(self._db, covered, max_id)
        if len(index.dead) + len(changed) > COMPACT_SHARE * max(1, index.live):
            log.info("search index: %d dead entries; compacting", len(index.dead) + len(changed))
            return None
        # As before a full build: the load's freed heap goes back first, so
        # the append's peak does not stack on top of it.
        release_free_memory()
        columns = await index_store.paper_columns(self._db, after_id=max_id, changed_after=covered)
        # Packed before `update_papers` consumes the summaries: what is
        # stored is this segment, not the whole index again.
        segment = core.segment_arrays(changed, columns)
        # A thread: the work is the new papers' (small), and the index
        # itself would cost more to send to a process than to extend here.
        updated = await asyncio.to_thread(
            core.update_papers,
            index,
            removed=changed,
            ids=columns.ids,
            titles=columns.titles,
            venues=columns.venues,
            years=columns.years,
            summaries=columns.summaries,
        )
        if updated is not None and updated is not index:
            self._save_later(updated, version, covered, segment)
        return updated

    def _save_later(
        self, index: core.SearchIndex, version: int, covered: int, segment: dict[str, Any]
    ) -> None:
        """Store an appended index for the next start, in the background
        (the searches need it now, the next start later): as a segment on
        the stored index it extends, else whole."""
        if self._saving is not None and not self._saving.done():
            self._saving.cancel()  # a newer index supersedes it
        self._saving = asyncio.create_task(
            self._save_appended(index, version, covered, segment), name="search-save"
        )

    async def _save_appended(
        self, index: core.SearchIndex, version: int, covered: int, segment: dict[str, Any]
    ) -> None:
        try:
            if await search_store.save_appended(self._db, version, covered, segment):
                return
        except StorageError as exc:
            log.warning("could not store the search index segment: %s", exc)
        await self._save(index, version)

    async def prepare_stored(self, store: StoredBuild | None = None) -> IndexStatus:
        """For `paperbot load`: the stored index current for the next start.
        Without an index in memory, an append is stored as a segment
        without reading the stored index (`search_store.append`), and a full
        build by `store`, which stores it itself (a worker process: this one
        never holds the index; a search reads it back from the store, as a
        restart does); else, or when the stored index is worth catching up,
        as `refresh`."""
        start = time.perf_counter()
        self.forget_version()
        version = await self._corpus_version()
        if self._index is None:
            async with self._lock:
                found = await self._append_stored(version, store)
            if found is not None:
                seconds = time.perf_counter() - start
                self.last_status = IndexStatus(found[0], version, found[1], seconds)
                return self.last_status
        index = await self.refresh()
        source = self.last_status.source if self.last_status is not None else "current"
        return IndexStatus(index.live, version, source, time.perf_counter() - start)

    async def _append_stored(
        self, version: int, store: StoredBuild | None
    ) -> tuple[int, str] | None:
        """`search_store.append`, else `store`'s full build when the stored
        index is not worth catching up; None: the way of `refresh`."""
        try:
            found = await search_store.append(self._db, version)
            if found is not None or store is None or await search_store.usable(self._db):
                return found
        except search_store.CommonChanged as exc:
            # Caught up, the stored index would decline the append anyway.
            log.info("search index: %s; building it in full", exc)
            if store is None:
                return None
        return await store(version), "built"

    async def flush(self, *, closing: bool = False) -> None:
        """Wait for a background save of the index; `closing` (the database
        closes next) also stops a background rebuild: no search would read it."""
        if closing and self._rebuild is not None:
            self._rebuild.cancel()  # a no-op once it is done; a failure is logged
            await asyncio.wait([self._rebuild])
        if self._saving is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._saving

    async def _load_stored(
        self, version: int, *, exact: bool = False, again: bool = True
    ) -> tuple[core.SearchIndex | None, str]:
        """The stored index: as it is when current ("stored"), or (unless
        `exact`) brought up to date from the version its watermark covers
        ("appended"; a new process after a load of a page), else (None, "built").
        Once, when another process saved or appended while this one read it,
        read again."""
        state = await search_store.current_state(self._db)
        if state is None or (exact and state.version != version):
            return None, "built"
        covered = state.version
        if covered != version and not await search_store.worth_catching_up(self._db, state):
            # The tags first: reading a stale index's arrays costs ~170 MB at 100k.
            return None, "built"
        index = await search_store.load(self._db, state)
        if index is None:
            if again and await search_store.current_state(self._db) != state:
                # It moved on meanwhile (a compaction drops the segments read
                # here): the new state is whole, reading it beats a build.
                return await self._load_stored(version, exact=exact, again=False)
            return None, "built"
        if covered == version:
            return index, "stored"
        return await self._catch_up(index, covered, version), "appended"

    async def _build_and_store(self, version: int) -> core.SearchIndex:
        # After a load: its freed heap goes back first, so the build's peak does not stack on it.
        release_free_memory()
        columns = await index_store.paper_columns(self._db)
        size = len(columns.ids)
        # In a worker process at scale (else it holds the GIL for seconds): no string lending.
        index = await off_loop(
            size,
            core.build_index_columns,
            ids=columns.ids,
            titles=columns.titles,
            venues=columns.venues,
            years=columns.years,
            summaries=columns.summaries,
            previous=self._index if size < WORKER_THRESHOLD else None,
        )
        del columns
        # Serve the new index at once: the previous one is freed before the save, not after.
        self._index, self._version = index, version
        await self._save(index, version)
        release_free_memory()
        return index

    async def _save(self, index: core.SearchIndex, version: int) -> None:
        try:
            await search_store.save(self._db, core.iter_arrays(index), version)
        except StorageError as exc:
            # A read-only or busy database costs a rebuild at the next start,
            # not this search.
            log.warning("could not store the search index: %s", exc)

    # ----------------------------------------------------------- search

    async def venues(self) -> tuple[str, ...]:
        """Loaded venue names (for autocomplete and query filters)."""
        return (await self.ensure_index()).venues

    def _parse_and_rank(
        self,
        index: core.SearchIndex,
        query: str,
        venue: str | None,
        year: int | None,
        limit: int,
        eager: int,
    ) -> tuple[ParsedQuery, core.Ranking, int | None]:
        parsed = parse_query(
            query,
            venues=index.venues,
            venue=venue,
            year=year,
            max_length=self._settings.max_query_length,
            expansions=self._tables.expansions,
            translations=self._tables.translations,
            synonyms=self._tables.synonyms,
            word_count=core.corpus_word_counts(index),
        )
        if parsed.problem is not None:
            return parsed, core.EMPTY_RANKING, None
        return core.rank_or_yearless(
            index, parsed, highlight=limit, eager=eager, year_given=year is not None
        )

    async def search(
        self,
        query: str,
        *,
        venue: str | None = None,
        year: int | None = None,
        limit: int = MAX_RESULTS,
        highlight: int | None = None,
    ) -> SearchResult:
        """Rank papers for a query; papers are fetched in one batch.

        The first `highlight` hits (all when None) get their matched strings
        now; the others' are worked out when `SearchHit.matched` is first read.
        """
        index = await self.ensure_index()
        eager = limit if highlight is None else min(highlight, limit)
        # Parsing reads the index (a Chinese run's cut, dictionary words'
        # document frequencies): off the loop at scale, one hop with the ranking.
        parsed, ranking, year_dropped = await self._run(
            self._parse_and_rank, index, query, venue, year, limit, eager
        )
        if parsed.problem is not None:
            return problem_result(index, parsed)
        if not ranking.ids:
            suggestion_ids = await self._run(core.suggest_titles, index, parsed)
            suggested = await paper_store.get_papers(self._db, suggestion_ids)
            return SearchResult(parsed, suggestions=tuple(p.title for p in suggested))
        ids = ranking.ids[:limit]
        found = {p.id: p for p in await paper_store.get_papers(self._db, ids)}
        hits = tuple(
            SearchHit(found[pid], score, ranking.matched, at)
            for at, (pid, score) in enumerate(zip(ids, ranking.scores, strict=False))
            if pid in found  # removed by a load since the index was built
        )
        return SearchResult(parsed, hits, total=len(ranking.ids), year_dropped=year_dropped)

    async def _run(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """CPU work on the loop for small corpora, in a thread for large ones."""
        if self._index is not None and self._index.size >= THREAD_THRESHOLD:
            return await asyncio.to_thread(fn, *args, **kwargs)
        return fn(*args, **kwargs)
