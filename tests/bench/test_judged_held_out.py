"""The held-out judged set (issue 10) is well-formed, names real papers and
shares nothing with the tuned set it checks.

Data checks only: nothing here runs the bot's search, matching or digest.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter

import pytest

from paperbot.bench.judged import (
    HELD_OUT_QUERIES_FILE,
    HELD_OUT_TOPICS_FILE,
    QUERY_KINDS,
    JudgedQuery,
    JudgedTopic,
    load_judged_queries,
    load_judged_topics,
    shipped_titles,
)
from paperbot.core.text import title_key
from paperbot.storage.db import Database
from paperbot.storage.papers import list_papers
from tests.bench.test_judged import content_words
from tests.support.app import REPO

MIN_TOPICS = 6
MIN_QUERIES = 25
MIN_RELEVANT_PER_TOPIC = 2


@pytest.fixture(scope="module")
def topics() -> tuple[JudgedTopic, ...]:
    return load_judged_topics(HELD_OUT_TOPICS_FILE)


@pytest.fixture(scope="module")
def queries() -> tuple[JudgedQuery, ...]:
    return load_judged_queries(HELD_OUT_QUERIES_FILE)


async def test_every_held_out_title_resolves_to_exactly_one_loaded_paper(
    loaded_db: Database, topics: tuple[JudgedTopic, ...], queries: tuple[JudgedQuery, ...]
) -> None:
    by_key: dict[str, list[str]] = {}
    for paper in await list_papers(loaded_db):
        by_key.setdefault(title_key(paper.title), []).append(paper.title)
    titles = {p.title for t in topics for p in t.relevant} | {
        e for q in queries for e in q.expected
    }
    for title in titles:
        assert by_key.get(title_key(title)) == [title], title


def test_held_out_sizes_and_kinds(
    topics: tuple[JudgedTopic, ...], queries: tuple[JudgedQuery, ...]
) -> None:
    assert len(topics) >= MIN_TOPICS
    assert {t.kind for t in topics} == {"vocabulary", "keyword"}
    assert all(len(t.relevant) >= MIN_RELEVANT_PER_TOPIC for t in topics)
    assert len(queries) >= MIN_QUERIES
    assert set(Counter(q.kind for q in queries)) == set(QUERY_KINDS)


def test_held_out_set_shares_no_topic_or_query_with_the_tuned_set(
    topics: tuple[JudgedTopic, ...], queries: tuple[JudgedQuery, ...]
) -> None:
    tuned_topics = load_judged_topics()
    assert not {t.query for t in topics} & {t.query for t in tuned_topics}
    assert not {t.id for t in topics if t.id} & {t.id for t in tuned_topics if t.id}
    assert not {q.query for q in queries} & {q.query for q in load_judged_queries()}


def test_held_out_vocabulary_ids_exist(topics: tuple[JudgedTopic, ...]) -> None:
    config = tomllib.loads(
        (REPO / "src" / "paperbot" / "data" / "topics.toml").read_text(encoding="utf-8")
    )
    known = {entry["id"] for entry in config["topic"]}
    assert {t.id for t in topics if t.kind == "vocabulary"} <= known


def test_held_out_paraphrases_and_acronyms_follow_the_rules(
    queries: tuple[JudgedQuery, ...],
) -> None:
    titles = shipped_titles()
    for query in queries:
        if query.kind == "paraphrase":
            for title in query.expected:
                assert not content_words(query.query) & content_words(title), query.query
        if query.kind == "acronym_in_summary":
            pattern = re.compile(rf"\b{re.escape(query.query)}\b", re.IGNORECASE)
            assert not any(pattern.search(title) for title in titles), query.query
