"""`paperbot load`'s topic matching shared with a forked helper once a core
is free (`topic_split`): the stored corpus and matches are the serial ones
byte for byte, in the same order, whether the helper works, dies or fails,
and no helper is forked without the mark or beside another thread."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from paperbot.bench.synthetic import synthetic_papers
from paperbot.config import BUNDLED_TOPICS
from paperbot.core.topics import (
    Topic,
    TopicCorpus,
    TopicMatches,
    Vocabulary,
    build_corpus,
    corpus_arrays,
    match_topic,
    vocabulary_fingerprint,
)
from paperbot.services import topic_split
from paperbot.services.topics import load_vocabulary

FRESH = "PAPERBOT_TEST_TOPIC_SPLIT_FRESH"
"""Set in the interpreter `test_the_split_in_a_fresh_interpreter` starts."""

# A helper is forked only from a process without other threads, and a long
# test session may have some left by earlier tests: the tests that fork run
# in an interpreter of their own.
in_fresh_interpreter = pytest.mark.skipif(
    os.environ.get(FRESH) != "1", reason="run by test_the_split_in_a_fresh_interpreter"
)

PAPERS = synthetic_papers(800)
MARK = (3, 800)


@pytest.fixture(scope="module")
def vocabulary() -> Vocabulary:
    return load_vocabulary(BUNDLED_TOPICS)


def corpus() -> TopicCorpus:
    return build_corpus((i + 1, title, summary) for i, (title, summary) in enumerate(PAPERS))


def stored(
    vocabulary: Vocabulary, corpus: TopicCorpus, matches: dict[str, TopicMatches]
) -> list[tuple[str, str, bytes]]:
    """What `topics_store` would store: every array's name, type and bytes, in order."""
    fingerprint = vocabulary_fingerprint(vocabulary)
    return [
        (name, str(array.dtype), array.tobytes())
        for name, array in corpus_arrays(corpus, matches, fingerprint, MARK)
    ]


@pytest.fixture(scope="module")
def serial(vocabulary: Vocabulary) -> list[tuple[str, str, bytes]]:
    built = corpus()
    protected = vocabulary.term_words()
    matches = {t.key: match_topic(t, built, protected, vocabulary) for t in vocabulary.topics}
    return stored(vocabulary, built, matches)


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The helpers forked (their pids), through the real `os.fork`."""
    made: list[int] = []
    real = os.fork

    def fork() -> int:
        pid = real()
        if pid:
            made.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    # Every postings array moved to shared memory, as at scale.
    monkeypatch.setattr(topic_split, "SHARED_ARRAY", 0)
    return made


def split(vocabulary: Vocabulary, mark: Path | None) -> list[tuple[str, str, bytes]]:
    built = corpus()
    free = None if mark is None else str(mark)
    matches = topic_split.match_all(vocabulary, built, vocabulary.term_words(), free)
    return stored(vocabulary, built, matches)


@in_fresh_interpreter
@pytest.mark.parametrize(("marked_after", "forked"), [(0, True), (40, True), (-1, False)])
def test_a_split_stores_the_serial_bytes(
    vocabulary: Vocabulary,
    serial: list[tuple[str, str, bytes]],
    forks: list[int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    marked_after: int,
    forked: bool,
) -> None:
    """The mark made after `marked_after` topics (-1: with one topic too
    few left for a helper, `MIN_LEFT`)."""
    count = len(vocabulary.topics)
    if marked_after < 0:
        marked_after = count - topic_split.MIN_LEFT
    mark = tmp_path / "free-core"
    matched: list[str] = []

    def match(topic: Topic, *args: Any, **kwargs: Any) -> TopicMatches:
        if len(matched) == marked_after:
            mark.touch()  # the index is done while this topic is matched
        matched.append(topic.key)
        return match_topic(topic, *args, **kwargs)

    monkeypatch.setattr(topic_split, "match_topic", match)
    assert split(vocabulary, mark) == serial
    assert len(forks) == forked
    # With a helper, this process did not match every topic itself.
    assert (len(matched) < count) == forked
    assert len(matched) > marked_after


def dying(how: Callable[[], None]) -> Callable[..., TopicMatches]:
    parent = os.getpid()

    def match(topic: Topic, *args: Any, **kwargs: Any) -> TopicMatches:
        if os.getpid() != parent:
            how()
        return match_topic(topic, *args, **kwargs)

    return match


def killed() -> None:
    os._exit(9)


def failing() -> None:
    raise RuntimeError("no")


@in_fresh_interpreter
@pytest.mark.parametrize("how", [killed, failing])
def test_a_helper_that_dies_or_fails_leaves_its_topics_to_the_worker(
    vocabulary: Vocabulary,
    serial: list[tuple[str, str, bytes]],
    forks: list[int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    how: Callable[[], None],
) -> None:
    mark = tmp_path / "free-core"
    mark.touch()
    monkeypatch.setattr(topic_split, "match_topic", dying(how))
    with caplog.at_level(logging.WARNING, logger=topic_split.__name__):
        assert split(vocabulary, mark) == serial
    assert len(forks) == 1
    assert [r.levelno for r in caplog.records] == [logging.WARNING]


@in_fresh_interpreter
def test_no_helper_without_the_mark_or_beside_another_thread(
    vocabulary: Vocabulary,
    serial: list[tuple[str, str, bytes]],
    forks: list[int],
    tmp_path: Path,
) -> None:
    assert split(vocabulary, None) == serial
    assert split(vocabulary, tmp_path / "never-made") == serial
    mark = tmp_path / "free-core"
    mark.touch()
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert split(vocabulary, mark) == serial
    finally:
        stop.set()
        other.join()
    assert forks == []


@pytest.mark.skipif(os.environ.get(FRESH) == "1", reason="the fresh interpreter's own run")
def test_the_split_in_a_fresh_interpreter() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__],
        env={**os.environ, FRESH: "1"},
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "6 passed, 1 skipped" in run.stdout, run.stdout[-2000:]
