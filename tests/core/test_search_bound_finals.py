"""A hyphenated compound's bound last word (`aware` of `quantization-aware`)
says how the first word's idea is used, so it weighs little in a query."""

from __future__ import annotations

import pytest

from paperbot.core.search import BOUND_FACTOR, parse_query, rank
from tests.support.search import index_of


def factors(query: str) -> dict[str, float]:
    return {t.text: t.weight_factor for t in parse_query(query).terms}


@pytest.mark.parametrize(
    ("query", "bound"),
    [
        ("quantization-aware training", {"aware"}),
        ("tokenizer-free byte-level models", {"free"}),  # `level` is not bound
        ("transformer-based retrieval-augmented generation", {"based", "augmented"}),
        ("Language-Specific tokenizers", {"specific"}),  # any case
        ("fp8-aware kernels", {"aware"}),  # after a digit too
        ("context aware retrieval", set()),  # no hyphen: a word of its own
        ("free lunch", set()),
        ("compute-optimal scaling", set()),  # `optimal` carries an idea there
        ("-aware", set()),  # nothing before the hyphen
    ],
)
def test_only_bound_finals_after_a_hyphen_weigh_less(query: str, bound: set[str]) -> None:
    weighed = factors(query)
    assert {w for w, f in weighed.items() if f < 1.0} == bound
    assert all(weighed[w] == pytest.approx(BOUND_FACTOR) for w in bound)


def test_a_bound_final_said_alone_too_still_weighs_less() -> None:
    # One term per word: the compound's sense is the query's.
    assert factors("sharpness-aware aware")["aware"] == pytest.approx(BOUND_FACTOR)


# `aware` is rarer here than `quantization`: by its IDF alone it would decide.
PAPERS = [
    ("Sharpness-Aware Minimization for Training", "flat minima"),
    ("Quantization of Vision Models", "low-bit weights"),
    ("Quantization of Speech Models", "low-bit audio"),
    ("Training with Quantization", "low-bit training"),
    ("Topology-Aware Scheduling", "network"),
]


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("quantization-aware training", 4),  # not an other -aware title
        ("sharpness-aware minimization", 1),  # both parts still find their compound
        ("topology-aware", 5),
    ],
)
def test_the_compound_first_word_decides_the_ranking(query: str, first: int) -> None:
    ranking = rank(index_of(PAPERS), parse_query(query))
    assert ranking.ids[0] == first
