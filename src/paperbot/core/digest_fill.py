"""Why each digest pick is there (`match_reason`, `near_reason`,
`fill_reason`), and near fill: when a reader's matching papers run out, the
digest's next slots go to papers with some evidence for their topics (a passing mention,
a weak alias alone: below the match threshold; or, where those leave room, the papers
closest to the topic's clear matches, `core.topics`' feedback) before unrelated new papers.

They are fill, never matches: the pick says "close to your topic", not
"matches". Relevance is the same sum as for matches (near score x the
topic's subscribers), so a near paper of a topic many people follow comes
first.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def on_corpus(
    corpus_ids: IntArray, ids: IntArray, scores: FloatArray
) -> tuple[NDArray[np.intp], FloatArray]:
    """Sorted positions in `corpus_ids` (sorted) of the ids found there with a
    positive score, and their scores clipped to [0, 1]."""
    wanted = np.asarray(ids, dtype=np.int64)
    values = np.clip(np.asarray(scores, dtype=np.float64), 0.0, 1.0)
    order = np.argsort(wanted, kind="stable")
    wanted, values = wanted[order], values[order]
    size = len(corpus_ids)
    pos = np.searchsorted(corpus_ids, wanted) if size else np.zeros(0, np.intp)
    keep = (pos < size) & (values > 0)
    keep[keep] &= corpus_ids[pos[keep]] == wanted[keep]
    return pos[keep].astype(np.intp), values[keep]


def near_order(
    size: int,
    positions: Sequence[NDArray[np.intp]],
    scores: Sequence[FloatArray],
    weights: FloatArray,
    blocked: NDArray[np.bool_],
) -> Iterator[tuple[int, list[int]]]:
    """Unblocked near papers, best first: (corpus position, its topic rows,
    largest contribution first). Ties go to the lower position. Lazy: a
    digest takes only the few it still needs."""
    total = np.zeros(size, dtype=np.float64)
    for pos, values, weight in zip(positions, scores, weights, strict=True):
        total[pos] += values * weight
    total[blocked] = 0.0
    found = np.flatnonzero(total > 0)
    found = found[np.lexsort((found, -total[found]))]
    topics = list(zip(positions, scores, weights, strict=True))
    for position in found.tolist():
        shares = [
            (-float(values[pos == position].sum() * weight), row)
            for row, (pos, values, weight) in enumerate(topics)
            if np.any(pos == position)
        ]
        yield position, [row for _, row in sorted(shares)]


def near_reason(topics: Sequence[str], audience: int) -> str:
    """Why a near paper was picked: close to (not matching) the topics named."""
    shown = ", ".join(topics[:3]) + (f" +{len(topics) - 3}" if len(topics) > 3 else "")
    whose = "your topic" if audience == 1 else "the topic"
    if len(topics) > 1:
        whose += "s"
    return f"close to {whose} {shown}, not a full match · 与关注主题相近"


def match_reason(topics: Sequence[str], subscribers: int, audience: int) -> str:
    """Why a match was picked, in the reader's words (at most three topics named).

    One reader: `matches your topic Scaling laws · 缩放定律 — 符合你关注的主题`;
    a server: `matches Scaling laws · 缩放定律 — 3 subscribers · 3 位订阅者`.
    """
    shown = ", ".join(topics[:3]) + (f" +{len(topics) - 3}" if len(topics) > 3 else "")
    if audience == 1:
        noun = "topic" if len(topics) == 1 else "topics"
        return f"matches your {noun} {shown} — 符合你关注的主题"
    people = "subscriber" if subscribers == 1 else "subscribers"
    return f"matches {shown} — {subscribers} {people} · {subscribers} 位订阅者"


def fill_reason(audience: int) -> str:
    """Why a fill paper was picked. The corpus knows venues and years, not
    dates, so it says what is true: new to this channel, outside the topics."""
    if audience == 0:
        return "new to this channel (no topics followed here) · 本频道未推送过的论文"
    if audience == 1:
        return "new to this channel, outside your topics · 本频道未推送过，不在你关注的主题内"
    return "new to this channel, outside the subscribed topics · 本频道未推送过，不在订阅主题内"


def liked_reason(audience: int) -> str:
    """Why a paper outside the topics was picked: the readers' 👍 point to it."""
    if audience == 1:
        return "like papers you 👍'd · 与你点赞的论文相似"
    return "like papers readers here 👍'd · 与本服务器读者点赞的论文相似"
