"""The second reading of the tuned topics (`judged/second_topics.toml`) is
well-formed and judges exactly the topics of `judged/topics.toml`, as they
are keyed there. Data checks only: nothing here runs the bot."""

from __future__ import annotations

from paperbot.bench.judged import SECOND_TOPICS_FILE, load_judged_topics, shipped_titles


def test_the_second_reading_judges_every_tuned_topic_in_order() -> None:
    first = load_judged_topics()
    second = load_judged_topics(SECOND_TOPICS_FILE)
    assert [(t.id, t.query, t.kind) for t in second] == [(t.id, t.query, t.kind) for t in first]


def test_every_second_reading_names_real_papers_with_a_reason() -> None:
    for topic in load_judged_topics(SECOND_TOPICS_FILE):
        assert topic.titles <= shipped_titles(), topic.query
        assert all(paper.why.strip() for paper in topic.relevant), topic.query
