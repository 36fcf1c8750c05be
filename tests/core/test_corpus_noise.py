"""The faster noise check says exactly what the character-by-character one said."""

from __future__ import annotations

import pytest

from paperbot.core.corpus import _looks_like_noise


def reference(title: str) -> bool:
    visible = [ch for ch in title if not ch.isspace()]
    letters = sum(1 for ch in visible if ch.isalpha())
    return letters * 2 < len(visible)


@pytest.mark.parametrize(
    "title",
    [
        "Attention Is All You Need",
        "12345 67890",
        "!!! ??? ***",
        "GPT-4 Technical Report",
        "S12345 abc",
        "½²³ ab",
        "五 ½",
        "a\u3000b\u00a0c\u2003d 1 2 3 4 5",
        "",
        "   ",
        "ＱＬｏＲＡ 2023",
        "x1y2z3",
    ],
)
def test_same_verdict_as_the_reference(title: str) -> None:
    assert _looks_like_noise(title) is reference(title)
