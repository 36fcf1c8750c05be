"""`normalize_bulk` / `normalize_columns` give exactly `normalize` of each
text: the load normalises in bulk once and shares the result with the search
index and the topic corpus, which used to normalise text by text."""

from __future__ import annotations

import pytest

from paperbot.core.text import normalize, normalize_bulk, normalize_columns

TEXTS = [
    "Direct Preference Optimization: Your Language Model",
    "數據混合與去重的資料集",  # traditional, Taiwan vocabulary
    "ＱＬｏＲＡ：高效微调",  # full-width
    "zero\u200bwidth and bidi\u202e controls",
    "  spaced   out\n\ntext  ",
    "",
    "a private-use \ue000 separator inside",
    "Café naïve ﬁne Straße",
    "MoE 路由 与 Pre-LN 方差",
    "Re-evaluation of non-convergence, 再-evaluation",
]


@pytest.mark.parametrize("chunk", [1, 2, 4, 1000])
def test_bulk_is_normalize_text_by_text(chunk: int) -> None:
    texts = list(TEXTS)
    normalize_bulk(texts, chunk=chunk)
    assert texts == [normalize(t) for t in TEXTS]


@pytest.mark.parametrize(
    ("titles", "summaries"),
    [
        (TEXTS[:3], TEXTS[3:6]),
        ([], []),
        (["Scaling Laws"], ["缩放定律，數據"]),
    ],
)
def test_columns_are_normalised_each(titles: list[str], summaries: list[str]) -> None:
    got = normalize_columns(list(titles), list(summaries))
    assert got == ([normalize(t) for t in titles], [normalize(s) for s in summaries])
