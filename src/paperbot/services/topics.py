"""Topic use-cases: the vocabulary, resolving user text, matching papers.

Matching results are cached per corpus version (`storage.papers.corpus_version`):
the first request after a load rebuilds the normalised corpus once, and each
topic is matched once per version, so the digest and the commands pay the
matching cost once.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from paperbot.config import ConfigError
from paperbot.core.models import Paper
from paperbot.core.topics import (
    Choice,
    Coverage,
    Topic,
    TopicCorpus,
    TopicKind,
    TopicMatches,
    Vocabulary,
    VocabularyError,
    build_corpus,
    coverage,
    explain,
    match_topic,
    parse_vocabulary,
    resolve,
    suggest,
)
from paperbot.services.workers import off_loop
from paperbot.storage import papers, search_index
from paperbot.storage.backend import Database

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


class TopicService:
    """The vocabulary plus a per-corpus-version cache of topic matches."""

    def __init__(self, db: Database, vocabulary: Vocabulary) -> None:
        self.db = db
        self.vocabulary = vocabulary
        self._protected = vocabulary.term_words()
        self._snapshot: _Snapshot | None = None
        self._matches: OrderedDict[tuple[int, TopicKind, str], TopicMatches] = OrderedDict()
        self._lock = asyncio.Lock()

    # -- what users type -------------------------------------------------

    def resolve(self, text: str) -> Topic:
        """A vocabulary topic or a free keyword; raises `TopicInputError`."""
        return resolve(text, self.vocabulary)

    def suggest(self, text: str) -> list[Choice]:
        """Autocomplete choices for /subscribe (at most 25, Discord-sized)."""
        return suggest(text, self.vocabulary)

    def stored(self, kind: TopicKind, key: str, label: str) -> Topic:
        """The topic a stored subscription refers to.

        A vocabulary id that was removed from the file since comes back as a
        topic with no terms (it matches nothing); `is_retired` tells.
        """
        if kind == "keyword":
            return Topic("keyword", key, label)
        return self.vocabulary.get(key) or Topic("topic", key, label or key)

    def is_retired(self, topic: Topic) -> bool:
        return not topic.is_keyword and self.vocabulary.get(topic.key) is None

    # -- matching --------------------------------------------------------

    async def corpus(self) -> tuple[int, TopicCorpus]:
        """The normalised corpus for the current corpus version, built once."""
        version = await papers.corpus_version(self.db)
        async with self._lock:
            snapshot = self._snapshot
            if snapshot is None or snapshot.version != version:
                snapshot = _Snapshot(version, await self._build())
                self._snapshot = snapshot
                self._matches.clear()
                log.info("topic corpus built: %d papers, version %d", len(snapshot.corpus), version)
        return snapshot.version, snapshot.corpus

    async def is_ready(self) -> bool:
        """Whether matching can start at once (the corpus is prepared for the
        current version), so a command need not defer its reply."""
        snapshot = self._snapshot
        return snapshot is not None and snapshot.version == await papers.corpus_version(self.db)

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
        the request path), so commands and the digest find them cached."""
        for topic in self.vocabulary.topics:
            await self.matches(topic)

    async def match_count(self, topic: Topic) -> int:
        return len(await self.matches(topic))

    def explain(self, topic: Topic, paper: Paper) -> tuple[str, ...]:
        """Why the paper matches: ("title: scaling law", "summary: 缩放定律")."""
        if self.is_retired(topic):
            return ()
        return explain(topic, paper.title, paper.summary, self._protected, self.vocabulary)

    async def coverage(self) -> Coverage:
        """Every vocabulary topic's match count and the papers no topic matches."""
        _, corpus = await self.corpus()
        if len(corpus) >= _THREAD_THRESHOLD:
            return await asyncio.to_thread(coverage, self.vocabulary, corpus)
        return coverage(self.vocabulary, corpus)
