"""Pseudo-relevance feedback (issue 10): a topic's clear matches decide its
borderline papers. A near paper that talks like the clear matches becomes a
match (with the least match score and a reason saying so); a weak match that
does not becomes near; without enough clear matches nothing changes; a paper
with no word evidence is never a match, but the closest to the profile fill
the near places the words leave (fill before unrelated papers)."""

from __future__ import annotations

import pytest

from paperbot.core.topics import (
    CLOSE_SCALE,
    FEEDBACK_REASON,
    NEAR_LIMIT,
    RELEVANCE_THRESHOLD,
    STRONG_SCORE,
    Topic,
    Vocabulary,
    build_corpus,
    explain,
    match_topic,
    parse_vocabulary,
    score_paper,
)

VOCABULARY = """
[[topic]]
id = "optimizers"
name = "Optimizers"
zh = "优化器"
aliases = ["Shampoo"]

[[concept]]
en = ["repetition", "data repetition"]
zh = ["重复数据"]
"""

LATE = "本文研究一个与主题关系不大的问题，提出新的训练框架并在多个基准上验证效果，最后顺带讨论"
"""A summary opening that pushes a term appended to it out of the lead."""

OPTIMIZER_WORDS = "preconditioner curvature momentum gradient statistics"
REPETITION_WORDS = "epochs token budget unique tokens diminishing returns"
UNRELATED_WORDS = "protein folding microscopy cells imaging"

# Ids 1-3: clear matches (the topic in the title); 4-9: unrelated papers, so
# the profile's words are rarer in the corpus than among the clear matches.
CLEAR_OPTIMIZERS = [
    (1, "Shampoo at scale", f"{OPTIMIZER_WORDS} for large models."),
    (2, "Optimizers for transformers", f"{OPTIMIZER_WORDS} compared."),
    (3, "A Shampoo variant", f"cheaper {OPTIMIZER_WORDS}."),
]
CLEAR_REPETITION = [
    (1, "Data repetition in pretraining", f"{REPETITION_WORDS} studied."),
    (2, "Scaling with data repetition", f"{REPETITION_WORDS} measured."),
    (3, "When data repetition hurts", f"{REPETITION_WORDS} again."),
]
UNRELATED = [(i, f"Unrelated paper {i}", f"{UNRELATED_WORDS} number {i}.") for i in range(4, 10)]


@pytest.fixture(scope="module")
def vocabulary() -> Vocabulary:
    return parse_vocabulary(VOCABULARY)


def _topic(vocabulary: Vocabulary, text: str) -> Topic:
    found = vocabulary.lookup(text)
    return found if found is not None else Topic.keyword(text)


@pytest.mark.parametrize(
    ("topic_text", "clear", "candidate", "alone", "matches"),
    [
        # A passing mention among the clear matches' words: accepted.
        ("Optimizers", CLEAR_OPTIMIZERS, f"{LATE}优化器 with {OPTIMIZER_WORDS}.", 1.0, True),
        # The same passing mention among other words: stays near.
        ("Optimizers", CLEAR_OPTIMIZERS, f"{LATE}优化器 with {UNRELATED_WORDS}.", 1.0, False),
        # A keyword's expansion in the lead alone (a weak match): kept when
        # it talks like the clear matches ...
        ("data repetition", CLEAR_REPETITION, f"重复数据 with {REPETITION_WORDS}.", 1.6, True),
        # ... dropped to near when it does not.
        ("data repetition", CLEAR_REPETITION, f"重复数据 with {UNRELATED_WORDS}.", 1.6, False),
        # Fewer than two clear matches: no profile, the words alone decide.
        ("Optimizers", CLEAR_OPTIMIZERS[:1], f"{LATE}优化器 with {OPTIMIZER_WORDS}.", 1.0, False),
        ("data repetition", CLEAR_REPETITION[:1], f"重复数据 with {UNRELATED_WORDS}.", 1.6, True),
        # No evidence at all: never added, however close.
        ("Optimizers", CLEAR_OPTIMIZERS, f"{OPTIMIZER_WORDS} only.", 0.0, False),
    ],
)
def test_clear_matches_decide_borderline_papers(
    vocabulary: Vocabulary,
    topic_text: str,
    clear: list[tuple[int, str, str]],
    candidate: str,
    alone: float,
    matches: bool,
) -> None:
    topic = _topic(vocabulary, topic_text)
    protected = vocabulary.term_words()
    # The candidate's own words put it on the border (or nowhere).
    assert score_paper(topic, "A candidate paper", candidate, protected, vocabulary) == (
        pytest.approx(alone) if alone >= RELEVANCE_THRESHOLD else 0.0
    )
    assert alone < STRONG_SCORE
    corpus = build_corpus([*clear, *UNRELATED, (100, "A candidate paper", candidate)])
    found = match_topic(topic, corpus, protected, vocabulary)
    assert set(found.ids.tolist()) >= {i for i, _, _ in clear}
    assert (100 in found.ids.tolist()) is matches
    assert not set(found.ids.tolist()) & {i for i, _, _ in UNRELATED}
    if alone > 0 and not matches:
        assert 100 in found.near_ids.tolist()  # still offered as near fill


def test_an_accepted_paper_has_the_least_match_score_and_says_why(
    vocabulary: Vocabulary,
) -> None:
    topic = _topic(vocabulary, "Optimizers")
    summary = f"{LATE}优化器 with {OPTIMIZER_WORDS}."
    corpus = build_corpus([*CLEAR_OPTIMIZERS, *UNRELATED, (100, "A candidate paper", summary)])
    found = match_topic(topic, corpus, vocabulary.term_words(), vocabulary)
    assert found.ids.tolist()[-1] == 100
    assert found.scores[-1] == RELEVANCE_THRESHOLD
    assert min(found.scores[:-1]) >= STRONG_SCORE
    reasons = explain(
        topic, "A candidate paper", summary, vocabulary.term_words(), vocabulary, matched=True
    )
    assert reasons == ("summary: 优化器", FEEDBACK_REASON)
    # Without `matched`, the paper's words alone do not make a match.
    assert explain(topic, "A candidate paper", summary, vocabulary.term_words(), vocabulary) == ()
    # A paper its words carry gets no feedback reason.
    clear = explain(topic, *CLEAR_OPTIMIZERS[0][1:], vocabulary.term_words(), vocabulary)
    assert clear == ("title: Shampoo",)


@pytest.mark.parametrize(
    ("summary", "near"),
    [
        # Most of the profile's words, no word of the topic: near, not a match.
        (f"{OPTIMIZER_WORDS} studied.", True),
        # Unrelated words: neither.
        (f"{UNRELATED_WORDS} studied.", False),
    ],
)
def test_papers_without_word_evidence_close_to_the_profile_are_near(
    vocabulary: Vocabulary, summary: str, near: bool
) -> None:
    topic = _topic(vocabulary, "Optimizers")
    mention = (200, "A passing mention", f"{LATE}优化器 and {UNRELATED_WORDS}.")
    rows = [*CLEAR_OPTIMIZERS, *UNRELATED, mention, (100, "A candidate paper", summary)]
    found = match_topic(topic, build_corpus(rows), vocabulary.term_words(), vocabulary)
    assert 100 not in found.ids.tolist()
    assert (100 in found.near_ids.tolist()) is near
    if near:
        # After every paper with word evidence, with a score below all of theirs.
        assert found.near_ids.tolist() == [200, 100]
        assert 0 < found.near_scores[-1] <= CLOSE_SCALE < found.near_scores[0]


def test_no_paper_without_word_evidence_when_the_words_fill_the_near_places(
    vocabulary: Vocabulary,
) -> None:
    topic = _topic(vocabulary, "Optimizers")
    mentions = [
        (200 + i, f"A passing mention {i}", f"{LATE}优化器 and {UNRELATED_WORDS}.")
        for i in range(NEAR_LIMIT)
    ]
    close = (100, "A candidate paper", f"{OPTIMIZER_WORDS} studied.")
    rows = [*CLEAR_OPTIMIZERS, *UNRELATED, *mentions, close]
    found = match_topic(topic, build_corpus(rows), vocabulary.term_words(), vocabulary)
    assert found.near_ids.tolist() == [i for i, _, _ in mentions]
