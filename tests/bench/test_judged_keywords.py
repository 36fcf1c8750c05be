"""The judged keyword sets (keywords typed as acronyms, their expansions and
Chinese aliases; tuned, and held out) are well-formed, name real papers and
share no query with the other judged sets.

Data checks only: nothing here runs the bot's search, matching or digest.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paperbot.bench.judged import (
    HELD_OUT_KEYWORD_TOPICS_FILE,
    HELD_OUT_TOPICS_FILE,
    KEYWORD_TOPICS_FILE,
    TOPICS_FILE,
    load_judged_topics,
    shipped_titles,
)

MIN_TOPICS = 12
MIN_RELEVANT_PER_TOPIC = 2


@pytest.mark.parametrize("path", [KEYWORD_TOPICS_FILE, HELD_OUT_KEYWORD_TOPICS_FILE])
def test_every_keyword_topic_is_a_keyword_with_real_relevant_papers(path: Path) -> None:
    topics = load_judged_topics(path)
    assert len(topics) >= MIN_TOPICS
    known = shipped_titles()
    for topic in topics:
        assert topic.kind == "keyword", topic.query
        assert topic.id is None, topic.query
        assert len(topic.relevant) >= MIN_RELEVANT_PER_TOPIC, topic.query
        assert topic.titles <= known, topic.query
        assert all(paper.why.strip() for paper in topic.relevant), topic.query
        assert len(topic.titles) == len(topic.relevant), topic.query


@pytest.mark.parametrize("path", [KEYWORD_TOPICS_FILE, HELD_OUT_KEYWORD_TOPICS_FILE])
def test_keyword_queries_are_new_to_the_other_judged_sets(path: Path) -> None:
    every = (TOPICS_FILE, HELD_OUT_TOPICS_FILE, KEYWORD_TOPICS_FILE, HELD_OUT_KEYWORD_TOPICS_FILE)
    others = {t.query.casefold() for f in every if f != path for t in load_judged_topics(f)}
    assert not {t.query.casefold() for t in load_judged_topics(path)} & others
