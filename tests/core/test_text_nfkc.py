"""`nfkc` is `unicodedata.normalize("NFKC", ...)` exactly: it only replaces
full-width punctuation by its decomposition before asking, which must never
change the result, also where a replaced character meets combining marks."""

from __future__ import annotations

import random
import unicodedata

import pytest

from paperbot.core.text import nfkc

CASES = [
    "",
    "plain ASCII title",
    "缩放定律，数据（去重）：为什么？100％！",
    "ideographic\u3000space",
    "ＱＬｏＲＡ：full-width letters stay on the slow path",
    "，\u0301",  # a replaced comma followed by a combining acute accent
    "A\u0301 e\u0301 precomposed by NFKC",
    "（\u0338",  # a parenthesis and a combining long solidus overlay
    "：\u0308x",
    "ﬁ ligature, ① circled, ㎏ square, ｶﾀｶﾅ half-width",
    "\u1100\u1161\u11a8 Hangul jamo compose",
    "\ud55c\u11a8 a syllable and a trailing jamo",
    "Café naïve Straße ǅ",
    "a\u0323\u0307 marks reordered",
    "\u2126 ohm, \u212b angstrom",
    "𠀀 supplementary ideograph, ＃ number sign",
]


@pytest.mark.parametrize("text", CASES)
def test_same_as_unicodedata(text: str) -> None:
    assert nfkc(text) == unicodedata.normalize("NFKC", text)


# Texts drawn from the characters around the replaced ones (combining marks,
# full-width and compatibility forms, jamo): where a shortcut could go wrong.
_POOL = (
    "，（）：；？！％\u3000"
    "aeAEn 数据模型"
    "\u0300\u0301\u0308\u0323\u0338\u0345\u3099\u309a"
    "ＡＢａ１＃ｶﾞ"
    "\u1100\u1161\u11a8\uac00"
    "ﬁ①㎏\u2126"
)


@pytest.mark.parametrize("seed", range(20))
def test_same_on_generated_texts(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        text = "".join(rng.choice(_POOL) for _ in range(rng.randint(1, 12)))
        assert nfkc(text) == unicodedata.normalize("NFKC", text), ascii(text)
