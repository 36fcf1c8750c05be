"""The judged relevance data (issue 10) is well-formed and names real papers.

These tests check the data only; they never run the bot's search, topic
matching or digest, so they say nothing about what the bot returns.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from paperbot.bench.judged import (
    QUERY_KINDS,
    TOPIC_KINDS,
    JudgedDataError,
    JudgedQuery,
    JudgedTopic,
    load_judged_queries,
    load_judged_topics,
    shipped_titles,
)
from paperbot.core.text import title_key
from paperbot.storage.db import Database
from paperbot.storage.papers import list_papers
from tests.support.app import REPO

MIN_TOPICS = 20
MIN_VOCABULARY_TOPICS = 14
MIN_KEYWORD_TOPICS = 6
MIN_RELEVANT_PER_TOPIC = 3
MIN_QUERIES = 80
MIN_QUERIES_PER_KIND = 8

# Words a paraphrase may share with its title without giving the title away.
FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "for",
        "with",
        "to",
        "in",
        "on",
        "by",
        "and",
        "or",
        "is",
        "are",
        "via",
        "from",
        "as",
        "at",
        "its",
        "it",
        "your",
        "do",
        "does",
        "how",
        "what",
        "why",
        "when",
        "can",
        "you",
        "i",
        "my",
        "so",
        "just",
        "same",
        "one",
        "this",
        "that",
        "be",
    ]
)


@pytest.fixture(scope="module")
def topics() -> tuple[JudgedTopic, ...]:
    return load_judged_topics()


@pytest.fixture(scope="module")
def queries() -> tuple[JudgedQuery, ...]:
    return load_judged_queries()


def judged_titles(topics: tuple[JudgedTopic, ...], queries: tuple[JudgedQuery, ...]) -> set[str]:
    return {p.title for t in topics for p in t.relevant} | {e for q in queries for e in q.expected}


async def test_every_judged_title_resolves_to_exactly_one_loaded_paper(
    loaded_db: Database, topics: tuple[JudgedTopic, ...], queries: tuple[JudgedQuery, ...]
) -> None:
    papers = await list_papers(loaded_db)
    by_key: dict[str, list[str]] = {}
    for paper in papers:
        by_key.setdefault(title_key(paper.title), []).append(paper.title)
    for title in judged_titles(topics, queries):
        assert by_key.get(title_key(title)) == [title], title


def test_topic_counts_and_kinds(topics: tuple[JudgedTopic, ...]) -> None:
    kinds = Counter(t.kind for t in topics)
    assert set(kinds) <= set(TOPIC_KINDS)
    assert len(topics) >= MIN_TOPICS
    assert kinds["vocabulary"] >= MIN_VOCABULARY_TOPICS
    assert kinds["keyword"] >= MIN_KEYWORD_TOPICS
    for topic in topics:
        assert len(topic.relevant) >= MIN_RELEVANT_PER_TOPIC, topic.query


def test_vocabulary_topic_ids_exist_in_the_topic_config(topics: tuple[JudgedTopic, ...]) -> None:
    config = tomllib.loads(
        (REPO / "src" / "paperbot" / "data" / "topics.toml").read_text(encoding="utf-8")
    )
    known_ids = {entry["id"] for entry in config["topic"]}
    ids = [t.id for t in topics if t.kind == "vocabulary"]
    assert set(ids) <= known_ids
    assert len(ids) == len(set(ids))
    assert all(t.id is None for t in topics if t.kind == "keyword")


def test_query_counts_and_kinds(queries: tuple[JudgedQuery, ...]) -> None:
    kinds = Counter(q.kind for q in queries)
    assert len(queries) >= MIN_QUERIES
    assert set(kinds) == set(QUERY_KINDS)
    assert min(kinds.values()) >= MIN_QUERIES_PER_KIND


def content_words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower())) - FUNCTION_WORDS


def test_paraphrases_share_no_content_word_with_their_title(
    queries: tuple[JudgedQuery, ...],
) -> None:
    for query in (q for q in queries if q.kind == "paraphrase"):
        for title in query.expected:
            assert not content_words(query.query) & content_words(title), query.query


def test_summary_acronyms_are_in_no_title(queries: tuple[JudgedQuery, ...]) -> None:
    titles = shipped_titles()
    for query in (q for q in queries if q.kind == "acronym_in_summary"):
        pattern = re.compile(rf"\b{re.escape(query.query)}\b", re.IGNORECASE)
        assert not any(pattern.search(title) for title in titles), query.query


def test_compound_queries_hold_a_hyphenated_compound(queries: tuple[JudgedQuery, ...]) -> None:
    for query in (q for q in queries if q.kind == "compound"):
        assert re.search(r"[a-z0-9]-[a-z]+", query.query), query.query


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


KNOWN = ("Paper A", "Paper B")
GOOD_TOPIC = (
    'id = "x"\nquery = "X"\nkind = "vocabulary"\nrelevant = [{ title = "Paper A", why = "w" }]\n'
)
GOOD_QUERY = 'query = "q"\nkind = "mixed"\nexpected = ["Paper A"]\nwhy = "w"\n'


def test_loaders_accept_good_data(tmp_path: Path) -> None:
    topics = load_judged_topics(write(tmp_path / "t.toml", "[[topic]]\n" + GOOD_TOPIC), KNOWN)
    queries = load_judged_queries(write(tmp_path / "q.toml", "[[query]]\n" + GOOD_QUERY), KNOWN)
    assert topics[0].titles == {"Paper A"}
    assert topics[0].id == "x"
    assert queries[0].expected == ("Paper A",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (GOOD_TOPIC.replace("Paper A", "Paper Z"), "no shipped paper"),
        (GOOD_TOPIC.replace('"vocabulary"', '"tag"'), "not one of"),
        (GOOD_TOPIC.replace('id = "x"\n', ""), "needs an id"),
        (GOOD_TOPIC.replace('"vocabulary"', '"keyword"'), "has no id"),
        (GOOD_TOPIC.replace(', why = "w"', ""), "why must be"),
        (GOOD_TOPIC.replace("[{", '[{ title = "Paper A", why = "v" }, {'), "listed twice"),
        (GOOD_TOPIC.replace("relevant = [", "relevant = [] #"), "non-empty"),
        (GOOD_TOPIC + "score = 1\n", "unknown field"),
    ],
)
def test_topic_loader_rejects_bad_data(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(JudgedDataError, match=message):
        load_judged_topics(write(tmp_path / "t.toml", "[[topic]]\n" + text), KNOWN)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (GOOD_QUERY.replace("Paper A", "Paper Z"), "no shipped paper"),
        (GOOD_QUERY.replace('"mixed"', '"riddle"'), "not one of"),
        (GOOD_QUERY.replace('["Paper A"]', "[]"), "1 to 3"),
        (
            GOOD_QUERY.replace('["Paper A"]', '["Paper A", "Paper B", "Paper A", "Paper B"]'),
            "1 to 3",
        ),
        (GOOD_QUERY.replace('["Paper A"]', '["Paper A", "Paper A"]'), "listed twice"),
        (GOOD_QUERY.replace('why = "w"', 'why = " "'), "why must be"),
    ],
)
def test_query_loader_rejects_bad_data(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(JudgedDataError, match=message):
        load_judged_queries(write(tmp_path / "q.toml", "[[query]]\n" + text), KNOWN)


def test_unreadable_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(JudgedDataError, match="cannot read"):
        load_judged_topics(write(tmp_path / "t.toml", "[[topic]\n"), KNOWN)
