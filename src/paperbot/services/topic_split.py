"""Matching every vocabulary topic in `paperbot load`'s topic worker, on a
second core once one is free.

The load builds the search index (worker lane 0) and the topic matches
(lane 1) side by side; the index is done first (~1.7 s earlier at 100,000
papers), and the topic worker would then match the topics left on one core
while the other idles. The loading process marks that moment with a file
(`free_core`); the topic worker, which looks for it between topics, then
forks a helper: the corpus (~2 s to build) is shared copy-on-write, not
built again. Both take the topics left one at a time from a pipe, so they
finish together; the helper sends its matches back through another pipe.
A helper that fails or dies costs only time: the worker matches what it
did not send. The matches equal the serial ones, in the vocabulary's order.

Memory: forked only after the index worker has ended (no idle worker
replaces it: `workers`), with the large postings arrays moved to shared
memory first (`_share_postings`), so the helper's resident set, summed
with the others', stays below the sum while the index was built (at
100,000 papers: ~165 MB for the helper at most, the index worker's ~165 MB
gone). From a process without other threads (no lock held by a thread
that would not exist in the child), and never in the bot: its builds
leave a core to the event loop.
"""

from __future__ import annotations

import gc
import logging
import mmap
import os
import pickle
import sys
import threading
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import NoReturn, TypeVar

import numpy as np
from numpy.typing import NDArray

from paperbot.core.topics import Topic, TopicCorpus, TopicMatches, Vocabulary, match_topic
from paperbot.services.memory import release_free_memory

log = logging.getLogger(__name__)

MIN_LEFT = 4
"""Fewer topics left than this (~0.15 s of matching at 100,000 papers): not
worth a fork."""

_TOKEN = 2
"""Bytes of a topic's place in the queue pipe; a pipe read this short is
never split between readers."""

MAX_LEFT = 4096
"""More topics left than this are matched serially: their places would not
fit in a pipe's buffer (64 KiB), written before anyone reads them."""

SHARED_ARRAY = 1 << 20
"""Postings arrays from this size on are moved to shared memory before a fork."""

T = TypeVar("T", bound=np.generic)
Match = Callable[[Topic], TopicMatches]


def match_all(
    vocabulary: Vocabulary,
    corpus: TopicCorpus,
    protected: frozenset[str],
    free_core: str | None = None,
) -> dict[str, TopicMatches]:
    """Every vocabulary topic's matches (`match_topic`), by key in the
    vocabulary's order; once the file `free_core` exists, the topics left
    shared with a forked helper (see the module doc)."""

    def match(topic: Topic) -> TopicMatches:
        return match_topic(topic, corpus, protected, vocabulary)

    topics = vocabulary.topics
    found: dict[int, TopicMatches] = {}
    for at, topic in enumerate(topics):
        left = len(topics) - at
        if free_core is not None and MIN_LEFT <= left <= MAX_LEFT and Path(free_core).exists():
            found.update(_shared(topics, at, match, corpus))
            break
        found[at] = match(topic)
    return {topic.key: found[at] for at, topic in enumerate(topics)}


def _share_postings(corpus: TopicCorpus) -> None:
    """Each large postings array (~34 MB at 100,000 papers) moved into shared
    anonymous memory, same values: a fork maps such pages into the helper
    only as it reads them, not all of them at once as this process's own
    pages, so its resident set (which `bench.memory.TreePeak` sums with
    this one's) stays smaller."""
    for index in (corpus.title, corpus.summary):
        for postings in (index.word_postings, index.char_postings):
            postings.docs = _in_shared(postings.docs)
            postings.indptr = _in_shared(postings.indptr)


def _in_shared(array: NDArray[T]) -> NDArray[T]:
    if array.nbytes == 0 or array.nbytes < SHARED_ARRAY:  # mmap cannot map 0 bytes
        return array
    room = mmap.mmap(-1, array.nbytes)  # MAP_SHARED: held by the array
    shared: NDArray[T] = np.frombuffer(room, array.dtype, array.size).reshape(array.shape)
    shared[:] = array
    return shared


def _shared(
    topics: Sequence[Topic], start: int, match: Match, corpus: TopicCorpus
) -> dict[int, TopicMatches]:
    """Topics `start` onwards matched by this process and, when it can fork
    one, a helper, each taking the next one left from a queue pipe."""
    queue, feed = os.pipe()
    with os.fdopen(feed, "wb") as out:
        out.write(b"".join(at.to_bytes(_TOKEN, "little") for at in range(start, len(topics))))
    helper = None
    if _single_threaded():
        _share_postings(corpus)
        helper = _fork_helper(topics, queue, match)
    found: dict[int, TopicMatches] = {}
    try:
        found = _take(topics, queue, match)
    finally:
        os.close(queue)
        if helper is not None:
            found.update(_collect(*helper))
    left = [at for at in range(start, len(topics)) if at not in found]
    if left:
        log.warning("the topic matching helper sent no matches for %d topics", len(left))
        found.update((at, match(topics[at])) for at in left)
    return found


def _take(topics: Sequence[Topic], queue: int, match: Match) -> dict[int, TopicMatches]:
    """The topics this process takes from the queue, matched, until it is empty."""
    found: dict[int, TopicMatches] = {}
    while len(token := os.read(queue, _TOKEN)) == _TOKEN:
        at = int.from_bytes(token, "little")
        found[at] = match(topics[at])
    return found


def _single_threaded() -> bool:
    """Whether this process runs no other Python thread (Linux only: the
    fork start method's home; elsewhere never asked to fork). A thread of
    this process holding a lock at the fork (the logging module's, a
    database connection's) would leave it held forever in the helper. Native
    pools that know about fork (OpenBLAS's, started by numpy) are not counted."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


def _fork_helper(topics: Sequence[Topic], queue: int, match: Match) -> tuple[int, int] | None:
    """(pid, read end of its results pipe) of a forked helper taking topics
    from `queue`; None when the fork failed (this process then takes them all)."""
    # Freed heap handed back first: the helper's pages are this process's.
    release_free_memory()
    results, back = os.pipe()
    # Objects made so far left out of collections: neither process then
    # writes to the pages of the shared corpus for the collector's sake.
    gc.freeze()
    try:
        pid = os.fork()
    except OSError as exc:
        gc.unfreeze()
        log.warning("could not fork a topic matching helper: %s", exc)
        os.close(results)
        os.close(back)
        return None
    if pid == 0:  # pragma: no cover - the helper; it never returns
        os.close(results)
        _helper(topics, queue, back, match)
    os.close(back)
    return pid, results


def _helper(topics: Sequence[Topic], queue: int, back: int, match: Match) -> NoReturn:
    """In the forked helper: match topics from the queue, send them back
    (one pickle: the worker reads it once its own share is done), and exit
    without running anything of the process it was forked from."""
    status = 1
    try:
        gc.disable()
        found = _take(topics, queue, match)
        with os.fdopen(back, "wb") as out:
            pickle.dump(found, out, protocol=pickle.HIGHEST_PROTOCOL)
        status = 0
    except BaseException:  # noqa: BLE001 - whatever it is, the worker matches what is missing
        status = 1
    finally:
        os._exit(status)


def _collect(pid: int, results: int) -> dict[int, TopicMatches]:
    """The helper's matches once it has ended; none when it failed or died
    (the caller matches them)."""
    try:
        with os.fdopen(results, "rb") as source:
            data = source.read()
    finally:
        _, status = os.waitpid(pid, 0)
        gc.unfreeze()
    if os.waitstatus_to_exitcode(status) != 0:
        return {}
    with suppress(pickle.UnpicklingError, EOFError, ValueError):
        # Its own pickle, from a process forked from this one.
        found: dict[int, TopicMatches] = pickle.loads(data)
        return found
    return {}
