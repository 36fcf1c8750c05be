"""`fold_word` skips its spelling regexes for words none can touch: the
same folds as always applying them."""

from __future__ import annotations

import pytest

from paperbot.core.text import fold_word


@pytest.mark.parametrize(
    ("word", "folded"),
    [
        ("optimisation", "optimization"),
        ("analysed", "analyzed"),
        ("colour", "color"),
        ("behaviours", "behaviour"),
        ("organising", "organizing"),
        ("paralyses", "paralyze"),
        ("realise", "realize"),
        ("models", "model"),
        ("studies", "study"),
        ("batches", "batch"),
        ("analysis", "analysis"),
        ("s12345", "s12345"),
        ("transformers", "transformer"),
        ("moe", "moe"),
        ("2023", "2023"),
    ],
)
def test_fold_word(word: str, folded: str) -> None:
    assert fold_word(word) == folded
