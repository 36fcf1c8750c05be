"""`TopicService.current`: a stored keyword is read as `resolve` reads its
text today, once per text for the service's life (a digest run asks again
for every subscriber, on the event loop)."""

from __future__ import annotations

import pytest

from paperbot.config import BUNDLED_TOPICS
from paperbot.core.topics import Topic, TopicInputError, Vocabulary, resolve
from paperbot.services.topics import TopicService, load_vocabulary
from paperbot.storage.backend import Database


@pytest.fixture
def topics(sqlite_db: Database) -> TopicService:
    return TopicService(sqlite_db, load_vocabulary(BUNDLED_TOPICS))


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        # A vocabulary topic is what it is: never resolved again.
        (Topic("topic", "scaling-laws", "Scaling laws"), ("topic", "scaling-laws")),
        # A keyword stored before its text named a topic reads as the topic now.
        (
            Topic("keyword", "instruction tuning", "instruction tuning"),
            ("topic", "instruction-tuning"),
        ),
        # A keyword keyed by its text before it became an alias keyword.
        (Topic("keyword", "思维链", "思维链"), ("keyword", "chain of thought")),
        # Keyed by a part of it before (语音 says speech, not recognition):
        # now by what says all of it, as "speech recognition" is.
        (Topic("keyword", "speech", "语音识别"), ("keyword", "asr")),
        # A Chinese alias and its English translation are one keyword.
        (Topic("keyword", "线性注意力", "线性注意力"), ("keyword", "linear attention")),
        # A free keyword stays the keyword it was.
        (Topic("keyword", "data repetition", "data repetition"), ("keyword", "data repetition")),
        # One that has since become an alias is a keyword within its topic,
        # keyed as every way of saying its concept is (flatness, 平坦极小值).
        (Topic("keyword", "flat minima", "flat minima"), ("keyword", "flatness")),
    ],
)
def test_current_reads_a_stored_topic_as_today(
    topics: TopicService, stored: Topic, expected: tuple[str, str]
) -> None:
    now = topics.current(stored)
    assert (now.kind, now.key) == expected


def test_current_resolves_each_text_once(
    topics: TopicService, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def counting(text: str, vocabulary: Vocabulary) -> Topic:
        calls.append(text)
        return resolve(text, vocabulary)

    monkeypatch.setattr("paperbot.services.topics.resolve", counting)
    stored = [Topic("keyword", "loss spikes", "loss spikes"), Topic("keyword", "低秩", "低秩")]
    first = [topics.current(t) for t in stored * 3]
    assert calls == ["loss spikes", "低秩"]
    assert first[:2] == first[2:4] == first[4:]


def test_current_keeps_a_keyword_that_no_longer_resolves(
    topics: TopicService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refusing(text: str, _vocabulary: Vocabulary) -> Topic:
        raise TopicInputError("{text} names nothing", text=text)

    monkeypatch.setattr("paperbot.services.topics.resolve", refusing)
    stored = Topic("keyword", "x", "x")
    assert topics.current(stored) is stored
