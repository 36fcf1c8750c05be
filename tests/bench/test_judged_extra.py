"""The extra judged vocabulary topics (2026-12-04; tuned, and held out) are
well-formed, name real papers and judge topics no other judged set judges.

Data checks only: nothing here runs the bot's search, matching or digest.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from paperbot.bench.judged import (
    EXTRA_TOPICS_FILE,
    HELD_OUT_EXTRA_TOPICS_FILE,
    HELD_OUT_TOPICS_FILE,
    TOPICS_FILE,
    load_judged_topics,
    shipped_titles,
)
from tests.support.app import REPO

EXTRA = [EXTRA_TOPICS_FILE, HELD_OUT_EXTRA_TOPICS_FILE]
TOPICS_PER_FILE = 6


@pytest.mark.parametrize("path", EXTRA)
def test_every_extra_topic_is_a_vocabulary_topic_with_real_papers(path: Path) -> None:
    config = tomllib.loads(
        (REPO / "src" / "paperbot" / "data" / "topics.toml").read_text(encoding="utf-8")
    )
    known_ids = {entry["id"] for entry in config["topic"]}
    topics = load_judged_topics(path)
    assert len(topics) == TOPICS_PER_FILE
    for topic in topics:
        assert topic.kind == "vocabulary", topic.query
        assert topic.id in known_ids, topic.query
        assert topic.relevant, topic.query
        assert topic.titles <= shipped_titles(), topic.query
        assert len(topic.titles) == len(topic.relevant), topic.query
        assert all(paper.why.strip() for paper in topic.relevant), topic.query


def test_no_topic_is_judged_twice() -> None:
    files = [TOPICS_FILE, HELD_OUT_TOPICS_FILE, *EXTRA]
    ids = [t.id for f in files for t in load_judged_topics(f) if t.id]
    assert len(ids) == len(set(ids))
