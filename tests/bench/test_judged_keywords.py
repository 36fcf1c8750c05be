"""The judged keyword set (keywords typed as acronyms, their expansions and
Chinese aliases) is well-formed, names real papers and shares no query with
the other judged sets.

Data checks only: nothing here runs the bot's search, matching or digest.
"""

from __future__ import annotations

from paperbot.bench.judged import (
    HELD_OUT_TOPICS_FILE,
    KEYWORD_TOPICS_FILE,
    TOPICS_FILE,
    load_judged_topics,
    shipped_titles,
)

MIN_TOPICS = 12
MIN_RELEVANT_PER_TOPIC = 2


def test_every_keyword_topic_is_a_keyword_with_real_relevant_papers() -> None:
    topics = load_judged_topics(KEYWORD_TOPICS_FILE)
    assert len(topics) >= MIN_TOPICS
    known = shipped_titles()
    for topic in topics:
        assert topic.kind == "keyword", topic.query
        assert topic.id is None, topic.query
        assert len(topic.relevant) >= MIN_RELEVANT_PER_TOPIC, topic.query
        assert topic.titles <= known, topic.query
        assert all(paper.why.strip() for paper in topic.relevant), topic.query
        assert len(topic.titles) == len(topic.relevant), topic.query


def test_keyword_queries_are_new_to_the_other_judged_sets() -> None:
    others = {
        t.query.casefold()
        for f in (TOPICS_FILE, HELD_OUT_TOPICS_FILE)
        for t in load_judged_topics(f)
    }
    assert not {t.query.casefold() for t in load_judged_topics(KEYWORD_TOPICS_FILE)} & others
