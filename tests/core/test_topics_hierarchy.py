"""The topic hierarchy (issue 10): a topic's `broader = [ids]` says it is a
kind of those topics, so its strong terms count for them too (a speculative-
decoding title is an efficient-inference paper), its weak ones do not, and a
file naming an unknown id or a topic above itself is refused with its line."""

from __future__ import annotations

import pytest

from paperbot.core.topics import (
    Vocabulary,
    VocabularyError,
    build_corpus,
    explain,
    match_topic,
    parse_vocabulary,
)
from paperbot.core.topics._hierarchy import broader_mistake, narrower_ids
from paperbot.core.topics._hits import counted_hits
from paperbot.core.topics._matching import _placed
from paperbot.core.topics._sense import other_sense

VOCABULARY = """
[[topic]]
id = "inference"
name = "Efficient inference"
zh = "高效推理"
aliases = ["KV cache"]

[[topic]]
id = "decoding"
name = "Decoding"
zh = "解码"
aliases = ["beam search"]

[[topic]]
id = "speculative"
name = "Speculative decoding"
zh = "推测解码"
broader = ["inference", "decoding"]
aliases = ["draft model"]
weak_aliases = ["verifier"]

[[topic]]
id = "tree-speculation"
name = "Tree speculation"
zh = "树状推测"
broader = ["speculative"]
aliases = ["token tree"]
"""


@pytest.fixture(scope="module")
def vocabulary() -> Vocabulary:
    return parse_vocabulary(VOCABULARY)


@pytest.mark.parametrize(
    ("links", "expected"),
    [
        ([("a", ()), ("b", ("a",))], {"a": ("b",)}),
        # At any depth, nearest first.
        ([("a", ()), ("b", ("a",)), ("c", ("b",))], {"a": ("b", "c"), "b": ("c",)}),
        # Two ways down to one topic list it once.
        (
            [("a", ()), ("b", ("a",)), ("c", ("a", "b"))],
            {"a": ("b", "c"), "b": ("c",)},
        ),
        ([("a", ()), ("b", ())], {}),
    ],
)
def test_narrower_ids_follow_broader_at_any_depth(
    links: list[tuple[str, tuple[str, ...]]], expected: dict[str, tuple[str, ...]]
) -> None:
    assert narrower_ids(links) == expected


@pytest.mark.parametrize(
    ("links", "expected"),
    [
        ([("a", ()), ("b", ("a",))], None),
        ([("a", ()), ("b", ("x",))], (1, "broader 'x' is not the id of another topic")),
        ([("a", ("a",))], (0, "broader 'a' is not the id of another topic")),
        ([("a", ("b",)), ("b", ("a",))], (0, "topic 'a' is (through others) broader than itself")),
        (
            [("a", ()), ("b", ("c",)), ("c", ("d",)), ("d", ("b",))],
            (1, "topic 'b' is (through others) broader than itself"),
        ),
    ],
)
def test_broader_mistakes_are_found(
    links: list[tuple[str, tuple[str, ...]]], expected: tuple[int, str] | None
) -> None:
    assert broader_mistake(links) == expected


_TOPIC = '[[topic]]\nid = "{id}"\nname = "{name}"\nzh = "话题"\n'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            _TOPIC.format(id="a", name="A") + 'broader = ["nope"]\n',
            "topics.toml:5: broader 'nope' is not the id of another topic",
        ),
        (
            _TOPIC.format(id="a", name="A")
            + 'broader = ["b"]\n'
            + _TOPIC.format(id="b", name="B").replace("话题", "话题二")
            + 'broader = ["a"]\n',
            "topics.toml:5: topic 'a' is (through others) broader than itself",
        ),
        (
            _TOPIC.format(id="a", name="A") + 'broader = "b"\n',
            "topics.toml:5: 'broader' must be a list of strings",
        ),
    ],
)
def test_bad_broader_is_refused_with_its_line(text: str, expected: str) -> None:
    with pytest.raises(VocabularyError) as caught:
        parse_vocabulary(text, source="topics.toml")
    assert str(caught.value) == expected


def test_vocabulary_lists_narrower_topics(vocabulary: Vocabulary) -> None:
    assert [t.key for t in vocabulary.narrower("inference")] == ["speculative", "tree-speculation"]
    assert [t.key for t in vocabulary.narrower("speculative")] == ["tree-speculation"]
    assert vocabulary.narrower("tree-speculation") == ()
    speculative = vocabulary.get("speculative")
    assert speculative is not None
    assert speculative.broader == ("inference", "decoding")


@pytest.mark.parametrize(
    ("topic_id", "title", "summary", "score"),
    [
        # The narrower topic's name and aliases are the broader one's strong terms.
        ("inference", "Fast Speculative Decoding via Optimal Transport", "一种新方法。", 3.0),
        # (Decoding's own name is in it too: a further term.)
        ("decoding", "Fast Speculative Decoding via Optimal Transport", "一种新方法。", 3.5),
        ("inference", "Training a Draft Model", "一种新方法。", 3.0),
        # Two levels down.
        ("inference", "Token Tree Verification", "一种新方法。", 3.0),
        # Its Chinese name too, in a summary's lead.
        ("inference", "A New Method", "推测解码的加速。", 2.0),
        # Its weak alias needs its own context: never the broader topic's evidence.
        ("inference", "A Learned Verifier", "一种新方法。", 0.0),
        # Nothing goes upwards: the broader topic's terms are not the narrower one's.
        ("speculative", "Compressing the KV Cache", "一种新方法。", 0.0),
        ("tree-speculation", "Fast Speculative Decoding", "一种新方法。", 0.0),
    ],
)
def test_a_narrower_topics_strong_terms_count_for_its_broader_topics(
    vocabulary: Vocabulary, topic_id: str, title: str, summary: str, score: float
) -> None:
    topic = vocabulary.get(topic_id)
    assert topic is not None
    found = match_topic(topic, build_corpus([(1, title, summary)]), vocabulary=vocabulary)
    assert (float(found.scores[0]) if len(found) else 0.0) == score


def test_explain_names_the_narrower_term(vocabulary: Vocabulary) -> None:
    topic = vocabulary.get("inference")
    assert topic is not None
    lines = explain(topic, "Fast Speculative Decoding", "一种新方法。", vocabulary=vocabulary)
    assert lines == ("title: Speculative decoding",)


@pytest.mark.parametrize(
    ("topic_id", "title", "other"),
    [
        # A narrower topic's term before the broader topic's is the topic's own
        # sense ("speculative" is speculative decoding, a kind of inference) ...
        ("inference", "Speculative KV Cache Eviction", False),
        # ... while another topic's term before it is another sense.
        ("inference", "Beam Search KV Cache Eviction", True),
    ],
)
def test_a_narrower_topics_term_is_no_other_sense(
    vocabulary: Vocabulary, topic_id: str, title: str, other: bool
) -> None:
    topic = vocabulary.get(topic_id)
    assert topic is not None
    corpus = build_corpus([(1, title, "一种新方法。")])
    hits = counted_hits(topic, corpus, frozenset(), vocabulary).hits
    assert (len(other_sense(topic, _placed(hits), corpus, vocabulary)) > 0) is other
