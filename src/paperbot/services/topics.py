"""Topic use-cases: the vocabulary, resolving user text, matching papers.

Matching results are cached per corpus version (`storage.papers.corpus_version`),
so the digest and the commands pay the matching cost once per version. The
normalised corpus follows the corpus like the search index does: a load
that only added papers extends it (and the vocabulary topics' matches,
decided against their stored feedback profiles until those are stale) by
the new papers alone; otherwise it is read from the database (stored by
`prepare`, i.e. `paperbot load` and the bot's start) or built in full.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paperbot.config import ConfigError
from paperbot.core.models import Paper
from paperbot.core.topics import (
    TOPICS_FORMAT,
    Choice,
    Coverage,
    Topic,
    TopicCorpus,
    TopicInputError,
    TopicKind,
    TopicMatches,
    Vocabulary,
    VocabularyError,
    build_corpus,
    corpus_arrays,
    coverage,
    explain,
    match_topic,
    parse_vocabulary,
    resolve,
    suggest,
    update_corpus,
    vocabulary_fingerprint,
)
from paperbot.services import topics_store
from paperbot.services.paper_texts import PaperTexts, topics_store_from
from paperbot.services.search import COMPACT_SHARE
from paperbot.services.workers import off_lane, off_loop
from paperbot.storage import papers, search_index
from paperbot.storage.backend import Database
from paperbot.storage.db import StorageError

log = logging.getLogger(__name__)

MATCH_CACHE_SIZE = 512
"""Topics whose matches are kept per corpus version (keywords are unbounded)."""

_THREAD_THRESHOLD = 5_000
"""Corpora at least this large are normalised and matched off the event loop."""


class TopicsConfigError(ConfigError):
    """The vocabulary file is missing or malformed; `str()` names file and line."""


def load_vocabulary(path: Path) -> Vocabulary:
    """Read and validate the vocabulary file (`topics.path`)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TopicsConfigError(f"topics.path: cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise TopicsConfigError(f"topics.path: {path} is not UTF-8 text") from None
    try:
        return parse_vocabulary(text, source=str(path))
    except VocabularyError as exc:
        raise TopicsConfigError(f"topics.path: {exc}") from None


@dataclass(frozen=True, slots=True)
class _Snapshot:
    version: int
    corpus: TopicCorpus
    mark: tuple[int, int] | None = None
    """(the corpus version the corpus covers, its max paper id): the papers
    changed since are found by their `changed_version`, new ones above the
    max id (see `_append`). None: unknown, only reused as it is."""


def _mark(version: int, corpus: TopicCorpus) -> tuple[int, int] | None:
    return (version, int(np.max(corpus.ids))) if len(corpus) else None


class TopicService:
    """The vocabulary plus a per-corpus-version cache of topic matches."""

    def __init__(self, db: Database, vocabulary: Vocabulary) -> None:
        self.db = db
        self.vocabulary = vocabulary
        self._protected = vocabulary.term_words()
        # Resolving may cost ms (typo checks); digests re-read every stored
        # keyword on the loop, and the vocabulary is fixed for our life.
        self._read_today = functools.lru_cache(maxsize=4096)(self._resolve_or_none)
        self._snapshot: _Snapshot | None = None
        self._matches: OrderedDict[tuple[int, TopicKind, str], TopicMatches] = OrderedDict()
        self._lock = asyncio.Lock()
        self._stored_version = -1
        self._pending: topics_store.Pending | None = None
        self._save_lock = asyncio.Lock()
        self.last_source: str | None = None
        """How the corpus last became current: "appended", "stored" or "built"."""

    # -- what users type -------------------------------------------------

    def resolve(self, text: str) -> Topic:
        """A vocabulary topic or a free keyword; raises `TopicInputError`."""
        return resolve(text, self.vocabulary)

    def suggest(self, text: str) -> list[Choice]:
        """Autocomplete choices for /subscribe (at most 25, Discord-sized)."""
        return suggest(text, self.vocabulary)

    def stored(self, kind: TopicKind, key: str, label: str) -> Topic:
        """The topic a stored subscription refers to. A vocabulary id removed
        from the file since comes back with no terms (`is_retired` tells)."""
        if kind == "keyword":
            return Topic("keyword", key, label)
        return self.vocabulary.get(key) or Topic("topic", key, label or key)

    def current(self, topic: Topic) -> Topic:
        """A stored keyword read as `resolve` (so /subscribe) reads it today."""
        return (self._read_today(topic.name) or topic) if topic.is_keyword else topic

    def _resolve_or_none(self, text: str) -> Topic | None:
        with contextlib.suppress(TopicInputError):
            return self.resolve(text)
        return None

    def within(self, topic: Topic) -> Topic | None:
        """The vocabulary topic a keyword says an alias of (`resolve` keys
        such a keyword by a term of it), else None."""
        return self.vocabulary.lookup(topic.key) if topic.is_keyword else None

    def is_retired(self, topic: Topic) -> bool:
        return not topic.is_keyword and self.vocabulary.get(topic.key) is None

    # -- matching --------------------------------------------------------

    async def corpus(self) -> tuple[int, TopicCorpus]:
        """The normalised corpus for the current corpus version: extended by
        the papers added since, else stored, else built (once per version)."""
        version = await papers.corpus_version(self.db)
        async with self._lock:
            snapshot = self._snapshot
            if snapshot is None or snapshot.version != version:
                snapshot = await self._advance(version)
                self._snapshot = snapshot
        return snapshot.version, snapshot.corpus

    async def _advance(self, version: int) -> _Snapshot:
        corpus, source = await self._append(version), "appended"
        if corpus is None:
            stored = await self._load_stored()
            if stored is not None and stored.version == version:
                corpus, source = stored.corpus, "stored"
            elif stored is not None:
                # Stored for an older version (the bot was down while a page
                # arrived, or `paperbot load` ran elsewhere): bring it up to date.
                self._snapshot = stored
                corpus = await self._append(version)
        if corpus is None:
            self._matches.clear()
            corpus, source = await self._build(), "built"
        log.info(
            "topic corpus %s: %d papers (%d dead entries), version %d",
            source,
            len(corpus) - len(corpus.dead),
            len(corpus.dead),
            version,
        )
        self.last_source = source
        return _Snapshot(version, corpus, _mark(version, corpus))

    async def _append(self, version: int) -> TopicCorpus | None:
        """The current corpus brought from the version it covers to `version`:
        the papers changed or removed since marked dead, the new and changed
        ones appended; the vocabulary topics that had matches follow by those
        papers alone, decided against their frozen feedback profiles
        (`core.topics.extend_matches`: matched afresh over the whole corpus
        once the papers added, changed or removed since pass `REFRESH_SHARE`);
        keywords' are dropped (their typo corrections depend on every paper's
        words) and matched when asked. None (a full build, which compacts)
        once dead entries would pass `COMPACT_SHARE`."""
        snapshot = self._snapshot
        if snapshot is None or snapshot.mark is None or snapshot.mark[0] > version:
            return None
        covered, max_id = snapshot.mark
        changed = await search_index.changed_since(self.db, covered, max_id)
        live = len(snapshot.corpus) - len(snapshot.corpus.dead)
        if len(snapshot.corpus.dead) + len(changed) > COMPACT_SHARE * max(1, live):
            return None
        columns = await search_index.paper_columns(self.db, after_id=max_id, changed_after=covered)
        rows = list(zip(columns.ids, columns.titles, columns.summaries, strict=True))
        del columns
        corpus, part = await asyncio.to_thread(update_corpus, snapshot.corpus, changed, rows)
        old = {key[2]: found for key, found in self._matches.items() if key[1] == "topic"}
        self._matches.clear()
        merged, self._pending = await asyncio.to_thread(
            topics_store.extend_all, old, self.vocabulary, corpus, part, changed, (covered, version)
        )
        self._matches.update(((version, "topic", key), m) for key, m in merged.items())
        return corpus

    async def _load_stored(self, *, again: bool = True) -> _Snapshot | None:
        """The corpus (and the vocabulary topics' matches, into the cache)
        that `warm` stored last, whatever its version; None when absent or
        unreadable. Once, when another process saved or appended while this
        one read it, read again."""
        state = await topics_store.current_state(self.db)
        if state is None:
            return None
        try:
            fingerprint = vocabulary_fingerprint(self.vocabulary)
            loaded = await topics_store.load(self.db, state, fingerprint)
        except (KeyError, ValueError, UnicodeDecodeError) as exc:
            log.warning("stored topic corpus unreadable (%s); rebuilding", exc)
            return None
        if loaded is None:
            if again and await topics_store.current_state(self.db) != state:
                # It moved on meanwhile (a compaction drops the segments read
                # here): the new state is whole, reading it beats a build.
                return await self._load_stored(again=False)
            return None
        corpus, found, mark = loaded
        version = state.version
        if mark is not None and mark[0] != version:
            mark = None  # not this corpus's watermark: only reused as it is
        self._matches.clear()
        self._matches.update(((version, "topic", key), m) for key, m in found.items())
        self._stored_version = version
        return _Snapshot(version, corpus, mark)

    async def _save(self) -> None:
        """Store the current corpus and the vocabulary topics' matches (once
        per version), for the next start; a failure costs a rebuild then."""
        async with self._save_lock:  # not the corpus lock: matching goes on meanwhile
            snapshot = self._snapshot
            if snapshot is None or self._stored_version == snapshot.version:
                return
            await self._save_snapshot(snapshot)

    async def _save_snapshot(self, snapshot: _Snapshot) -> None:
        pending, mark = self._pending, snapshot.mark
        if await topics_store.store_pending(
            self.db, pending, snapshot.version, mark, self.vocabulary
        ):
            self._stored_version = snapshot.version
            return
        found = {
            key[2]: m
            for key, m in self._matches.items()
            if key[0] == snapshot.version and key[1] == "topic"
        }
        arrays = corpus_arrays(
            snapshot.corpus, found, vocabulary_fingerprint(self.vocabulary), snapshot.mark
        )
        try:
            await search_index.save_index(
                self.db,
                arrays,
                corpus_version=snapshot.version,
                format=TOPICS_FORMAT,
                scope="topics",
            )
        except StorageError as exc:
            log.warning("could not store the topic corpus: %s", exc)
            return
        self._stored_version = snapshot.version

    async def prepare_stored(self, texts: PaperTexts | None = None) -> str:
        """For `paperbot load`: the stored corpus and matches current for the
        next start, without keeping a fully built corpus in this process
        (the worker builds, matches and stores it: neither ~300 MB of
        objects nor ~80 MB of arrays come back at 100,000 papers). What can
        be extended is extended as `warm` does. Returns how it became
        current. A full build takes the papers' normal forms from `texts`
        when given (a load shares them with the search index), in worker
        lane 1 (the search index builds in lane 0 meanwhile)."""
        version = await papers.corpus_version(self.db)
        state = await topics_store.current_state(self.db)
        if state is not None and state.version == version:
            return "stored"
        if self._snapshot is None and state is not None:
            appended = await topics_store.append(self.db, version, self.vocabulary)
            if appended is not None:
                self.last_source = appended
                return appended
        if self._snapshot is not None or state is not None:
            await self.warm()
            return self.last_source or "current"
        return await self._build_stored(version, texts)

    async def _build_stored(self, version: int, texts: PaperTexts | None) -> str:
        """`prepare_stored`'s full build: at scale built, matched and stored
        by worker lane 1 ("built", or "skipped" when a load raced it)."""
        if texts is not None:
            shared = await texts.get()
            ids = shared.ids
            if len(ids) < _THREAD_THRESHOLD:
                await self.warm()
                return self.last_source or "current"
            # Papers come in id order: the last id is the max.
            mark, size = (version, ids[-1]), len(ids)
            job = functools.partial(topics_store_from, shared.files, free_core=texts.free_core())
        else:
            columns = await search_index.paper_columns(self.db)
            rows = list(zip(columns.ids, columns.titles, columns.summaries, strict=True))
            del columns
            if len(rows) < _THREAD_THRESHOLD:
                await self.warm()
                return self.last_source or "current"
            mark, size = (version, rows[-1][0]), len(rows)
            job = functools.partial(topics_store.build_and_store, rows, False)
        source, problem = await off_lane(1, size, job, self.vocabulary, self.db.target, mark)
        if problem is not None:
            # As a save from this process: the next start builds it again.
            log.warning("could not store the topic corpus: %s", problem)
        return source

    async def _build(self) -> TopicCorpus:
        # Columns, not Paper objects: read in batches, so a large corpus does
        # not hold the event loop for seconds while rows become objects.
        columns = await search_index.paper_columns(self.db)
        rows = list(zip(columns.ids, columns.titles, columns.summaries, strict=True))
        del columns
        if len(rows) >= _THREAD_THRESHOLD:
            return await off_loop(len(rows), build_corpus, rows)
        return build_corpus(rows)

    async def matches(self, topic: Topic) -> TopicMatches:
        """Papers matching the topic, best first (cached per corpus version)."""
        version, corpus = await self.corpus()
        key = (version, topic.kind, topic.key)
        cached = self._matches.get(key)
        if cached is not None:
            self._matches.move_to_end(key)
            return cached
        if self.is_retired(topic):
            found = TopicMatches.empty()
        elif len(corpus) >= _THREAD_THRESHOLD:
            found = await asyncio.to_thread(
                match_topic, topic, corpus, self._protected, self.vocabulary
            )
        else:
            found = match_topic(topic, corpus, self._protected, self.vocabulary)
        # Store only if no reload happened meanwhile, or the entry would be stale.
        if self._snapshot is not None and self._snapshot.version == version:
            self._matches[key] = found
            while len(self._matches) > MATCH_CACHE_SIZE:
                self._matches.popitem(last=False)
        return found

    async def warm(self) -> None:
        """Prepare the corpus and match every vocabulary topic (start-up, off
        the request path), so commands and the digest find them cached; and
        store both for the next start."""
        for topic in self.vocabulary.topics:
            await self.matches(topic)
        await self._save()

    async def match_count(self, topic: Topic) -> int:
        return len(await self.matches(topic))

    def explain(self, topic: Topic, paper: Paper, *, matched: bool = False) -> tuple[str, ...]:
        """Why the paper matches: ("title: scaling law", "summary: 缩放定律");
        `matched=True` for a paper of `matches(topic)` (see `core.topics.explain`)."""
        if self.is_retired(topic):
            return ()
        return explain(
            topic, paper.title, paper.summary, self._protected, self.vocabulary, matched=matched
        )

    async def coverage(self) -> Coverage:
        """Every vocabulary topic's match count and the papers no topic
        matches, from the matches the digest uses (cached, or matched now)."""
        _, corpus = await self.corpus()
        found = {t.key: await self.matches(t) for t in self.vocabulary.topics}
        if len(corpus) >= _THREAD_THRESHOLD:
            return await asyncio.to_thread(coverage, self.vocabulary, corpus, found)
        return coverage(self.vocabulary, corpus, found)
