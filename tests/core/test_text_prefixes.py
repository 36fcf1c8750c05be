"""A hyphenated bound prefix makes another word: `normalize` joins it, so
"re-evaluation" is one token that no alias of "evaluation" finds."""

from __future__ import annotations

import pytest

from paperbot.core.text import normalize, tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Predicting Training Re-evaluation Curves",
            ["predicting", "training", "reevaluation", "curves"],
        ),
        ("Non-Convergence of Adam", ["nonconvergence", "of", "adam"]),
        ("un-normalized and mis-specified", ["unnormalized", "and", "misspecified"]),
        # Not a prefix: a word ending in one, a digit after the hyphen, a free word.
        (
            "genre-specific pre-training co-training",
            ["genre", "specific", "pre", "training", "co", "training"],
        ),
        ("non-2 re- evaluation", ["non", "2", "re", "evaluation"]),
        ("self-alignment", ["self", "alignment"]),
        # A CJK character before the hyphen is no word: the prefix still joins.
        ("用re-ranking", ["用", "reranking"]),
    ],
)
def test_bound_prefixes_join_their_words(text: str, expected: list[str]) -> None:
    assert tokens(normalize(text)) == expected


def test_typed_and_stored_forms_meet() -> None:
    assert normalize("RE-EVALUATION") == normalize("reevaluation") == "reevaluation"
