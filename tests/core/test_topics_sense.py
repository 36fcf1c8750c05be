"""A topic's term in another topic's sense (issue 10): a title that says the
term only right after a name or alias of another vocabulary topic ("Image
Tokenizer") makes the paper borderline unless it holds another concept of
the topic; the topic's clear matches then decide it, and a paper they keep
keeps its score."""

from __future__ import annotations

import pytest

from paperbot.core.topics import (
    FEEDBACK_REASON,
    RELEVANCE_THRESHOLD,
    TOPIC_TITLE_WEIGHT,
    Vocabulary,
    build_corpus,
    explain,
    match_topic,
    parse_vocabulary,
)
from paperbot.core.topics._hits import counted_hits
from paperbot.core.topics._matching import _placed
from paperbot.core.topics._sense import other_sense

VOCABULARY = """
[[topic]]
id = "tokenization"
name = "Tokenization"
zh = "分词"
aliases = ["tokenizer", "BPE"]
weak_aliases = ["vocabulary"]

[[topic]]
id = "vision"
name = "Vision models"
zh = "视觉模型"
aliases = ["vision transformer"]
weak_aliases = ["image", "visual"]

[[topic]]
id = "speech"
name = "Speech and audio"
zh = "语音"
aliases = ["speech"]

[[topic]]
id = "science"
name = "Science applications"
zh = "科学应用"
aliases = ["microscopy"]

[[topic]]
id = "decoding"
name = "Decoding methods"
zh = "解码"
aliases = ["decoding", "constrained decoding"]

[[topic]]
id = "grammars"
name = "Formal grammars"
zh = "形式文法"
aliases = ["constrained"]

[[concept]]
en = ["tokenization", "tokenizer"]
zh = ["分词", "分词器"]
"""


@pytest.fixture(scope="module")
def vocabulary() -> Vocabulary:
    return parse_vocabulary(VOCABULARY)


def _other(vocabulary: Vocabulary, topic_id: str, title: str, summary: str) -> bool:
    topic = vocabulary.get(topic_id)
    assert topic is not None
    corpus = build_corpus([(1, title, summary)])
    hits = counted_hits(topic, corpus, frozenset(), vocabulary).hits
    return len(other_sense(topic, _placed(hits), corpus, vocabulary)) > 0


@pytest.mark.parametrize(
    ("topic_id", "title", "summary", "other"),
    [
        # Another topic's weak alias before the term, and its translation in
        # the summary (one sense per discourse): another sense.
        ("tokenization", "A Unified Image Tokenizer", "一个图像分词器。", True),
        ("tokenization", "Differentiable Visual Tokenization", "视觉分词。", True),
        # Another topic's strong alias as the qualifier.
        ("tokenization", "Speech Tokenization and Embedding", "离散语音单元。", True),
        # No qualifier, or the topic's own term as the qualifier.
        ("tokenization", "Tokenizer Choice Matters", "分词器的选择。", False),
        ("tokenization", "A Faster BPE Tokenizer", "更快的分词器。", False),
        # One occurrence without a qualifier is enough.
        ("tokenization", "Image Tokenizer or Text Tokenizer?", "对比两种分词器。", False),
        # ... also of another term of the same concept.
        ("tokenization", "Image Tokenizer and Tokenization", "图像分词器。", False),
        ("tokenization", "Image Tokenizer and Visual Tokenization", "图像分词器。", True),
        # Another concept of the topic in the summary confirms the topic.
        ("tokenization", "A Unified Image Tokenizer", "它沿用 BPE 的合并规则。", False),
        # A weak alias (a general word) keeps its sense under a qualifier.
        ("vision", "Microscopy Image Models", "显微镜图像上的视觉模型。", False),
        # The qualifier and the term together are the topic's own alias.
        ("decoding", "Constrained Decoding for JSON", "一种解码方法。", False),
        # A qualifier that names no topic.
        ("tokenization", "Adaptive Tokenization", "自适应分词。", False),
    ],
)
def test_a_title_term_after_another_topics_name_is_read_in_that_sense(
    vocabulary: Vocabulary, topic_id: str, title: str, summary: str, other: bool
) -> None:
    assert _other(vocabulary, topic_id, title, summary) is other


@pytest.mark.parametrize(
    ("word", "ends_a_term"),
    [
        ("transformer", True),  # "vision transformer"
        ("decoding", True),  # "decoding", "constrained decoding"
        ("vision", True),  # the id "vision"
        ("分词", True),  # a Chinese name is one token
        ("constrained", True),  # Formal grammars' own alias
        ("unified", False),
        ("image tokenizer", False),  # a word, not a phrase
    ],
)
def test_the_vocabulary_knows_the_last_word_of_every_term(
    vocabulary: Vocabulary, word: str, ends_a_term: bool
) -> None:
    # Kept with the vocabulary (`_sense` rejects most title words by it), so
    # two vocabularies in one process never share it.
    assert (word in vocabulary.term_last_words) is ends_a_term
    other = parse_vocabulary('[[topic]]\nid = "x"\nname = "Scaling law"\nzh = "缩放定律"\n')
    assert "law" in other.term_last_words
    assert "law" not in vocabulary.term_last_words
    assert "transformer" not in other.term_last_words


TEXT_WORDS = "subword merges lexicon text corpus languages compression"
PIXEL_WORDS = "pixels patches codebook reconstruction generation images"
UNRELATED_WORDS = "protein folding cells molecules chemistry"

# Ids 1-3: clear text-tokenization matches; 10-15: unrelated papers, so the
# profile's words are rarer in the corpus than among the clear matches.
CLEAR = [
    (1, "Tokenizer design for multilingual models", f"{TEXT_WORDS} compared."),
    (2, "BPE revisited", f"{TEXT_WORDS} measured."),
    (3, "Tokenization and fairness", f"{TEXT_WORDS} across scripts."),
]
UNRELATED = [(i, f"Unrelated paper {i}", f"{UNRELATED_WORDS} number {i}.") for i in range(10, 16)]


@pytest.mark.parametrize(
    ("papers", "summary", "matches", "score"),
    [
        # Its words are not the clear matches' words: near, not a match.
        (CLEAR + UNRELATED, f"A tokenizer for {PIXEL_WORDS}.", False, RELEVANCE_THRESHOLD),
        # It talks like the clear matches: kept, with its title score.
        (CLEAR + UNRELATED, f"A tokenizer for {TEXT_WORDS}.", True, TOPIC_TITLE_WEIGHT),
        # Too few clear matches for a profile: nothing changes.
        (CLEAR[:1] + UNRELATED, f"A tokenizer for {PIXEL_WORDS}.", True, TOPIC_TITLE_WEIGHT),
    ],
)
def test_the_clear_matches_decide_a_paper_read_in_another_sense(
    vocabulary: Vocabulary,
    papers: list[tuple[int, str, str]],
    summary: str,
    matches: bool,
    score: float,
) -> None:
    topic = vocabulary.get("tokenization")
    assert topic is not None
    corpus = build_corpus([*papers, (99, "A Unified Image Tokenizer", summary)])
    found = match_topic(topic, corpus, vocabulary=vocabulary)
    ids = found.ids.tolist()
    assert (99 in ids) is matches
    if matches:
        assert float(found.scores[ids.index(99)]) == pytest.approx(score)
    else:
        near = found.near_ids.tolist()
        assert float(found.near_scores[near.index(99)]) == pytest.approx(score)


def test_explain_says_the_feedback_decided_a_paper_read_in_another_sense(
    vocabulary: Vocabulary,
) -> None:
    topic = vocabulary.get("tokenization")
    assert topic is not None
    title, summary = "A Unified Image Tokenizer", "图像的离散分词。"
    assert explain(topic, title, summary, vocabulary=vocabulary) == ()
    assert explain(topic, title, summary, vocabulary=vocabulary, matched=True) == (
        "title: tokenizer",
        "summary: 分词",
        FEEDBACK_REASON,
    )
    plain = explain(topic, "Tokenizer Choice Matters", "文本的分词。", vocabulary=vocabulary)
    assert plain == ("title: tokenizer", "summary: 分词")
