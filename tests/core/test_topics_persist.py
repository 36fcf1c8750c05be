"""The topic corpus and the vocabulary topics' matches (with their feedback
profiles) as named arrays and back."""

from __future__ import annotations

from dataclasses import replace

import pytest

from paperbot.bench.synthetic import synthetic_papers
from paperbot.core.topics import (
    FROZEN_PROFILE,
    Profile,
    TopicMatches,
    build_corpus,
    corpus_arrays,
    corpus_from_arrays,
    match_topic,
    matches_from_arrays,
    segment_matches,
    vocabulary_fingerprint,
)
from tests.support.topics import assert_same_corpus, assert_same_matches, shipped_vocabulary


@pytest.mark.parametrize("count", [0, 1, 300])
def test_a_corpus_and_its_matches_come_back_equal(count: int) -> None:
    corpus = build_corpus((i + 1, t, s) for i, (t, s) in enumerate(synthetic_papers(count)))
    vocabulary = shipped_vocabulary()
    matches = {
        t.key: match_topic(t, corpus, vocabulary.term_words(), vocabulary)
        for t in vocabulary.topics
    }
    fingerprint = vocabulary_fingerprint(vocabulary)
    arrays = dict(corpus_arrays(corpus, matches, fingerprint))
    assert_same_corpus(corpus_from_arrays(arrays), corpus)
    back = matches_from_arrays(arrays, fingerprint)
    assert back.keys() == matches.keys()
    for key, found in matches.items():
        assert_same_matches(back[key], found)


def test_matches_of_another_vocabulary_are_not_used() -> None:
    corpus = build_corpus([(1, "Scaling laws for everything", "缩放定律")])
    arrays = dict(corpus_arrays(corpus, {"scaling-laws": TopicMatches.empty()}, "a" * 64))
    assert matches_from_arrays(arrays, "a" * 64).keys() == {"scaling-laws"}
    assert matches_from_arrays(arrays, vocabulary_fingerprint(shipped_vocabulary())) == {}


@pytest.mark.parametrize(
    ("damage", "error"),
    [
        ("title_docs", KeyError),
        ("summary_word_indptr", ValueError),
        ("ids", ValueError),
    ],
)
def test_a_damaged_set_is_refused(damage: str, error: type[Exception]) -> None:
    corpus = build_corpus((i + 1, t, s) for i, (t, s) in enumerate(synthetic_papers(20)))
    arrays = dict(corpus_arrays(corpus, {}, "f" * 64))
    if error is KeyError:
        del arrays[damage]
    else:
        arrays[damage] = arrays[damage][:-1]
    with pytest.raises(error):
        corpus_from_arrays(arrays)


def test_texts_holding_nul_are_refused() -> None:
    corpus = build_corpus([(1, "a", "b")])
    broken = replace(corpus.title, docs=("bad\x00doc",))
    with pytest.raises(ValueError, match="NUL"):
        dict(corpus_arrays(corpus.__class__(corpus.ids, broken, corpus.summary), {}, "f" * 64))


def test_extended_profiles_come_back_with_their_counts() -> None:
    # A profile that has seen papers since it was made keeps counting after
    # a restart (its refresh comes at the same share).
    weights = (("speculative", 3.5), ("推测", 0.7))
    found = TopicMatches.empty()
    matches = {
        "a": replace(found, profile=Profile(weights, clear=11, papers=1500, since=30)),
        "b": found,
    }
    arrays = dict(corpus_arrays(build_corpus([]), matches, "f" * 64))
    back = matches_from_arrays(arrays, "f" * 64)
    assert [back[key].profile for key in ("a", "b")] == [matches["a"].profile, Profile()]


@pytest.mark.parametrize("damage", ["profile_counts", "profile_indptr", "profile_weights"])
def test_damaged_profiles_are_refused(damage: str) -> None:
    found = replace(TopicMatches.empty(), profile=Profile((("a", 1.0),), 2, 10, 1))
    arrays = dict(corpus_arrays(build_corpus([]), {"a": found}, "f" * 64))
    arrays[damage] = arrays[damage][:-1]
    with pytest.raises(ValueError, match="profiles disagree"):
        matches_from_arrays(arrays, "f" * 64)


def test_matches_stored_without_their_frozen_profile_take_the_previous_terms() -> None:
    corpus = build_corpus((i + 1, t, s) for i, (t, s) in enumerate(synthetic_papers(300)))
    vocabulary = shipped_vocabulary()
    fingerprint = vocabulary_fingerprint(vocabulary)
    previous = {
        t.key: match_topic(t, corpus, vocabulary.term_words(), vocabulary)
        for t in vocabulary.topics[:5]
    }
    grown = {key: replace(m, profile=replace(m.profile, since=7)) for key, m in previous.items()}
    arrays = dict(corpus_arrays(corpus, grown, fingerprint))
    for name in FROZEN_PROFILE:
        del arrays[name]
    back = segment_matches(arrays, fingerprint, previous)
    assert back.keys() == grown.keys()
    for key, matches in grown.items():
        assert_same_matches(back[key], matches)
        assert back[key].profile == matches.profile
    with pytest.raises(ValueError, match="not stored"):
        segment_matches(arrays, fingerprint, {})
