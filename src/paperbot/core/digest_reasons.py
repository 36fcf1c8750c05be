"""Why a digest pick was picked, in the reader's words (used by `core.digest`)."""

from __future__ import annotations

from collections.abc import Sequence


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
