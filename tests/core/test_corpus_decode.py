"""A page's lines: stripped, invisible characters dropped, and a break is
`\\r\\n`, `\\r` or `\\n` whichever way the text is split."""

from __future__ import annotations

import pytest

from paperbot.core.corpus_decode import LINE_BREAK, page_lines
from paperbot.core.text import strip_invisible


def reference(text: str) -> list[str]:
    """`page_lines` as it was: each line on its own."""
    return [strip_invisible(line).strip() for line in LINE_BREAK.split(text)]


@pytest.mark.parametrize(
    "text",
    [
        "a\nb\n",
        "  a  \n\tb\u200b \n",
        "a\r\nb\rc\nd",
        # An invisible character between `\r` and `\n`: two breaks, not one.
        "a\r\u200b\nb",
        "\u200e\n\u202a x \u202c\n",
        "a\u2028b\x0bc\x1cd",
        "",
        "\n\n",
    ],
)
def test_same_lines_as_splitting_then_stripping(text: str) -> None:
    assert page_lines(text) == reference(text)
