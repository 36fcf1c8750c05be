"""A CJK character's papers as bits (`core.topics._bits`): the papers
holding every character of a term, at any positions, as the postings tell."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from paperbot.core.topics import build_corpus
from paperbot.core.topics._bits import COMMON_SHARE, all_bits, bits_at, holding_all

SUMMARIES = [
    "强化学习的奖励",
    "学习率调度",
    "奖励模型",
    "",
    "强化训练",
    "图像生成",
    "强化学习",
    "模型压缩",
    "强化奖励学习",
    "学",
]
"""Ten papers: the bits span two bytes, the last one partly used."""


@pytest.mark.parametrize(
    ("chars", "positions", "expected"),
    [
        ("学", [0, 1, 2, 6, 8, 9], [True, True, False, True, True, True]),
        ("强学", [0, 1, 4, 6, 8], [True, False, False, True, True]),
        ("强学", [8, 0], [True, True]),
        ("奖", list(range(10)), [i in {0, 2, 8} for i in range(10)]),
        ("猫", [0, 5, 9], [False, False, False]),
        ("强猫", [0, 6], [False, False]),
        ("学", [], []),
        ("", [3, 9], [True, True]),
    ],
)
def test_bits_at_positions_say_which_papers_hold_every_character(
    chars: str, positions: list[int], expected: list[bool]
) -> None:
    corpus = build_corpus([(i, "title", s) for i, s in enumerate(SUMMARIES)])
    wanted = np.asarray(positions, dtype=np.intp)
    found = bits_at(all_bits(corpus, corpus.summary.char_postings, set(chars)), wanted)
    assert found.dtype == np.bool_
    assert found.tolist() == expected
    # As the postings tell: every character's postings hold the position.
    postings = corpus.summary.char_postings
    plain = [all(p in postings.get(c, ()) for c in set(chars)) for p in positions]
    assert found.tolist() == plain


def test_bits_are_kept_per_corpus_and_field() -> None:
    corpus = build_corpus([(i, s, s) for i, s in enumerate(SUMMARIES)])
    other = build_corpus([(i, "", s) for i, s in enumerate(reversed(SUMMARIES))])
    everyone = np.arange(len(SUMMARIES), dtype=np.intp)
    title = bits_at(all_bits(corpus, corpus.title.char_postings, {"奖"}), everyone)
    again = bits_at(all_bits(corpus, corpus.title.char_postings, {"奖"}), everyone)
    summary = bits_at(all_bits(other, other.summary.char_postings, {"奖"}), everyone)
    empty = bits_at(all_bits(other, other.title.char_postings, {"奖"}), everyone)
    assert title.tolist() == again.tolist() == [i in {0, 2, 8} for i in range(10)]
    assert summary.tolist() == [i in {1, 7, 9} for i in range(10)]
    assert not empty.any()


@pytest.mark.parametrize(
    ("chars", "positions", "expected"),
    [
        # 强 and 学 are common (bits), 猫 absent, 狗 rare (searched).
        ("强学", [0, 1, 4, 6, 8], [True, False, False, True, True]),
        ("强狗", [0, 40, 39, 10], [False, True, False, False]),
        ("狗", [40, 39, 0], [True, False, False]),
        ("猫", [0, 40], [False, False]),
        ("强猫", [0, 6], [False, False]),
        ("学", [], []),
    ],
)
def test_holding_all_mixes_bits_of_common_characters_and_searches_of_rare_ones(
    chars: str, positions: list[int], expected: list[bool]
) -> None:
    summaries = [*SUMMARIES, *["模型"] * 30, "强化狗"]
    corpus = build_corpus([(i, "title", s) for i, s in enumerate(summaries)])
    postings = corpus.summary.char_postings
    assert len(postings["狗"]) * COMMON_SHARE < len(corpus) <= len(postings["强"]) * COMMON_SHARE
    wanted = np.asarray(positions, dtype=np.intp)
    found = holding_all(corpus, postings, set(chars), wanted)
    assert found.dtype == np.bool_
    assert found.tolist() == expected


def test_the_bits_live_on_their_corpus_and_stay_behind_when_it_is_sent() -> None:
    corpus = build_corpus([(i, "title", s) for i, s in enumerate(SUMMARIES)])
    postings = corpus.summary.char_postings
    first = all_bits(corpus, postings, {"强"})
    assert corpus.char_bits == {(id(postings), "强"): first}
    assert all_bits(corpus, postings, {"强"}) is first
    sent = pickle.loads(pickle.dumps(corpus))
    assert sent.char_bits == {}
    assert corpus.char_bits  # the sender keeps its own
    again = bits_at(all_bits(sent, sent.summary.char_postings, {"强"}), np.arange(10))
    assert again.tolist() == [i in {0, 4, 6, 8} for i in range(10)]
