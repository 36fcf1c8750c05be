"""Rendering a digest post: the header line, who it is for, one embed per
pick, within Discord's limits; and the plan as JSON for the CLI.

The picking itself is `core.digest`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from paperbot.core import limits
from paperbot.core.digest import DigestPlan, Pick
from paperbot.core.links import arxiv_search_url
from paperbot.core.models import Paper
from paperbot.core.render import (
    EmbedData,
    EmbedField,
    MessageData,
    defuse_mentions,
    fit_embeds,
    trim,
)

DIGEST_COLOR = 0x3B82F6
_NO_SUMMARY = "*No summary in the digest.*"
_DESCRIPTION_CAP = 900


_WEEKDAYS = (
    ("Monday", "周一"),
    ("Tuesday", "周二"),
    ("Wednesday", "周三"),
    ("Thursday", "周四"),
    ("Friday", "周五"),
    ("Saturday", "周六"),
    ("Sunday", "周日"),
)


def digest_header(day: date, *, extra: bool = False) -> str:
    """The first line of a post; it also identifies the post in channel history.

    Weekday names come from a table, not `%A`, so the process locale can't
    change the text.
    """
    kind = "Extra paper digest · 加推论文" if extra else "Daily paper digest · 每日论文"
    english, chinese = _WEEKDAYS[day.weekday()]
    return f"📚 **{kind} — {english} {chinese} {day.isoformat()}**"


def _nothing_left_note(plan: DigestPlan) -> str:
    if plan.corpus_size == 0:
        # Not "everything was posted": nothing was ever loaded.
        return (
            "No papers are loaded yet, so there is nothing to share today (an operator "
            "runs `paperbot load`). 尚未加载任何论文，今天没有推荐。"
        )
    return (
        "Every paper in the corpus has already been posted in this channel, so there "
        "is nothing new to share today. 本频道已发完所有论文，今天没有新的推荐。"
    )


def render_digest(plan: DigestPlan, papers: Mapping[int, Paper], header: str) -> MessageData:
    """One message: header, who it is for, one embed per pick, within limits."""
    if plan.nothing_left:
        return MessageData(content=f"{header}\n{_nothing_left_note(plan)}")
    picks = [p for p in plan.picks if p.paper_id in papers][: limits.EMBEDS_PER_MESSAGE]
    lines = [header]
    if plan.remaining == 0:
        lines.append("These are the last papers not yet posted here. 这是最后几篇未发过的论文。")
    mention_ids = _mention_order(picks)
    mention_line, mentioned = _mention_line(
        mention_ids, limits.CONTENT_MAX - len("\n".join(lines)) - 1
    )
    if mention_line:
        lines.append(mention_line)
    embeds = _embeds(picks, papers)
    return MessageData(
        content="\n".join(lines),
        embeds=tuple(embeds),
        mention_user_ids=mentioned,
        paper_ids=tuple(p.paper_id for p in picks[: len(embeds)]),
    )


def _mention_order(picks: Sequence[Pick]) -> list[int]:
    hits: dict[int, int] = {}
    for p in picks:
        for user in p.subscribers:
            hits[user] = hits.get(user, 0) + 1
    return sorted(hits, key=lambda u: (-hits[u], u))


def _mention_line(user_ids: Sequence[int], budget: int) -> tuple[str, tuple[int, ...]]:
    """`Picked for <@1> <@2> … and N more`, as many mentions as fit the budget."""
    if not user_ids:
        return "", ()
    prefix = "Picked for your topics:"
    line = prefix
    mentioned: list[int] = []
    for index, user in enumerate(user_ids):
        left = len(user_ids) - index - 1
        tail = f" and {left} more" if left else ""
        candidate = f"{line} <@{user}>"
        # Keep room for the "and N more" that would follow this mention.
        if len(candidate) + len(f" and {len(user_ids)} more") > budget and left:
            break
        if len(candidate) + len(tail) > budget:
            break
        line = candidate
        mentioned.append(user)
    if not mentioned:
        return "", ()
    if len(mentioned) < len(user_ids):
        line += f" and {len(user_ids) - len(mentioned)} more"
    return line, tuple(mentioned)


def _embeds(picks: Sequence[Pick], papers: Mapping[int, Paper]) -> list[EmbedData]:
    """Embeds sharing the 6,000-character budget: short parts are capped by
    the number of picks, and the summaries split what is left (a short summary
    leaves its unused share to the longer ones)."""
    if not picks:
        return []
    share = limits.EMBED_TOTAL_MAX // len(picks)
    caps = _Caps(
        title=min(limits.EMBED_TITLE_MAX, share // 3),
        topics=min(limits.EMBED_FIELD_VALUE_MAX, share // 6),
        footer=min(limits.EMBED_FOOTER_MAX, share // 6),
    )
    shells = [_embed(item, papers[item.paper_id], "", caps) for item in picks]
    summaries = [_summary_text(papers[item.paper_id]) for item in picks]
    budgets = _water_fill(
        [len(text) for text in summaries],
        limits.EMBED_TOTAL_MAX - sum(e.size() for e in shells),
        min(_DESCRIPTION_CAP, limits.EMBED_DESCRIPTION_MAX),
    )
    embeds = [
        _embed(item, papers[item.paper_id], trim(text, budget)[:budget], caps)
        for item, text, budget in zip(picks, summaries, budgets, strict=True)
    ]
    # Sized to fit already; fit_embeds guarantees the total regardless.
    return fit_embeds(embeds)


@dataclass(frozen=True, slots=True)
class _Caps:
    title: int
    topics: int
    footer: int


def _summary_text(paper: Paper) -> str:
    return defuse_mentions(paper.summary) if paper.summary.strip() else _NO_SUMMARY


def _water_fill(wants: Sequence[int], total: int, cap: int) -> list[int]:
    """Split `total` so nobody gets more than they want or `cap`, fairly."""
    budgets = [0] * len(wants)
    left = max(0, total)
    pending = sorted(range(len(wants)), key=lambda i: wants[i])
    while pending:
        fair = left // len(pending)
        index = pending.pop(0)
        budgets[index] = min(wants[index], cap, fair)
        left -= budgets[index]
    return budgets


def _embed(pick: Pick, paper: Paper, description: str, caps: _Caps) -> EmbedData:
    title = trim(defuse_mentions(paper.title), caps.title)
    fields = [EmbedField("Venue", f"{defuse_mentions(paper.venue)} {paper.year}", inline=True)]
    if pick.topics:
        topics = " · ".join(defuse_mentions(t) for t in pick.topics)
        fields.append(EmbedField("Topics", trim(topics, caps.topics), inline=True))
    return EmbedData(
        title=title,
        description=description,
        url=arxiv_search_url(paper.title),
        fields=tuple(fields),
        footer=trim(defuse_mentions(pick.reason), caps.footer),
        color=DIGEST_COLOR,
    )


def plan_json(plan: DigestPlan, papers: Mapping[int, Paper]) -> dict[str, object]:
    """The plan as JSON-ready data (CLI `--json`)."""
    return {
        "requested": plan.requested,
        "remaining": plan.remaining,
        "nothing_left": plan.nothing_left,
        "picks": [
            {
                "id": p.paper_id,
                "title": papers[p.paper_id].title if p.paper_id in papers else None,
                "venue": papers[p.paper_id].venue if p.paper_id in papers else None,
                "year": papers[p.paper_id].year if p.paper_id in papers else None,
                "kind": p.kind,
                "reason": p.reason,
                "topics": list(p.topics),
                "subscribers": len(p.subscribers),
                "relevance": round(p.relevance, 4),
                "profile": round(p.profile, 4),
            }
            for p in plan.picks
        ],
    }
