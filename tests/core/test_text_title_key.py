"""`title_key` takes a shortcut for ASCII titles, and `TitleKeys` remembers
keys: both give the key the full normalisation gives."""

from __future__ import annotations

import unicodedata

import pytest

from paperbot.core.text import TitleKeys, collapse_whitespace, strip_invisible, title_key


def reference(title: str) -> str:
    """`title_key` without its ASCII shortcut."""
    return collapse_whitespace(unicodedata.normalize("NFKC", strip_invisible(title)).casefold())


TITLES = [
    "Attention Is All You Need",
    "  GPT-4   Technical\tReport ",
    "A\x1cB\x1fC\x0bD\x0cE",
    "MIXED case: Title",
    "",
    "   ",
    "ＱＬｏＲＡ: Efficient Finetuning",
    "Stra\u00dfe \u0130stanbul",
    "Zero\u200bWidth\u00adSoft",
    "ﬁne-tuning",
    "Title\u3000with\u00a0spaces",
]


@pytest.mark.parametrize("title", TITLES)
def test_same_key_as_the_full_normalisation(title: str) -> None:
    assert title_key(title) == reference(title)


def test_title_keys_remember_each_title_once() -> None:
    keys = TitleKeys()
    assert [keys(t) for t in TITLES * 2] == [reference(t) for t in TITLES * 2]
    assert len(keys) == len(set(TITLES))
