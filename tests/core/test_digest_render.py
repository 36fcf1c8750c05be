"""Rendering a digest post: content, mentions, embeds, Discord's limits."""

from __future__ import annotations

import re
from datetime import date

import pytest

from paperbot.core import limits
from paperbot.core.digest import (
    DigestPlan,
    Pick,
    fill_reason,
    match_reason,
)
from paperbot.core.digest_render import digest_header, render_digest
from paperbot.core.links import arxiv_search_url
from paperbot.core.models import Paper
from paperbot.core.render import MessageData

DAY = date(2026, 11, 30)
HEADER = digest_header(DAY)
HOSTILE = "@everyone look <@&123456789012345678> and <@!42> @here 注意"


def paper(pid: int, title: str = "", summary: str = "", venue: str = "NeurIPS") -> Paper:
    return Paper(
        pid,
        title or f"Paper number {pid}: scaling things",
        venue,
        2025,
        "预训练",
        (summary or f"这篇论文研究了第{pid}个问题。它提出了新方法。结果很好。",),
        (f"x.txt:{pid}",),
    )


def plan_for(
    n: int, subscribers: tuple[int, ...] = (1, 2), remaining: int = 10
) -> tuple[DigestPlan, dict[int, Paper]]:
    picks = tuple(
        Pick(
            i, f"matches: topic {i} — {len(subscribers)} subscribers", (f"topic {i}",), subscribers
        )
        for i in range(1, n + 1)
    )
    return DigestPlan(picks, n, remaining), {i: paper(i) for i in range(1, n + 1)}


def check_limits(message: MessageData) -> None:
    assert len(message.content) <= limits.CONTENT_MAX
    assert len(message.embeds) <= limits.EMBEDS_PER_MESSAGE
    assert sum(e.size() for e in message.embeds) <= limits.EMBED_TOTAL_MAX
    for embed in message.embeds:
        assert len(embed.title) <= limits.EMBED_TITLE_MAX
        assert len(embed.description) <= limits.EMBED_DESCRIPTION_MAX
        assert all(len(f.value) <= limits.EMBED_FIELD_VALUE_MAX for f in embed.fields)
        assert len(embed.footer or "") <= limits.EMBED_FOOTER_MAX


def all_text(message: MessageData) -> str:
    parts = [message.content]
    for e in message.embeds:
        parts += [e.title, e.description, e.footer or ""]
        parts += [f.name + f.value for f in e.fields]
    return "\n".join(parts)


@pytest.mark.parametrize(
    ("day", "weekday"),
    [
        (date(2026, 11, 30), "Monday 周一"),
        (date(2026, 12, 6), "Sunday 周日"),
        (date(2024, 2, 29), "Thursday 周四"),
    ],
)
def test_header_carries_the_local_date(day: date, weekday: str) -> None:
    header = digest_header(day)
    assert day.isoformat() in header
    assert weekday in header


def test_extra_header_differs() -> None:
    assert "2026-11-30" in digest_header(DAY, extra=True)
    assert digest_header(DAY) != digest_header(DAY, extra=True)


def test_one_embed_per_pick_with_link_venue_summary_topics_reason() -> None:
    plan, papers = plan_for(3)
    message = render_digest(plan, papers, HEADER)
    assert message.content.startswith(HEADER)
    assert len(message.embeds) == 3
    first = message.embeds[0]
    assert first.title == papers[1].title
    assert first.url == arxiv_search_url(papers[1].title)
    assert first.description == papers[1].summary
    fields = {f.name: f.value for f in first.fields}
    assert fields["Venue"] == "NeurIPS 2025"
    assert fields["Topics"] == "topic 1"
    assert first.footer == "matches: topic 1 — 2 subscribers"
    check_limits(message)


def test_mentions_exactly_the_matched_subscribers_in_content() -> None:
    picks = (
        Pick(1, "r", ("a",), (7, 9)),
        Pick(2, "r", ("b",), (9, 11)),
        Pick(3, fill_reason(3), kind="fill"),
    )
    message = render_digest(DigestPlan(picks, 3, 5), {i: paper(i) for i in (1, 2, 3)}, HEADER)
    # Most-matched first, then by id.
    assert message.mention_user_ids == (9, 7, 11)
    mentioned = [int(m) for m in re.findall(r"<@(\d+)>", message.content)]
    assert mentioned == [9, 7, 11]
    # Mentions in embeds would not notify anyone: they belong in the content.
    assert not any("<@" in e.description for e in message.embeds)


@pytest.mark.parametrize(
    ("pick", "footer"),
    [
        (
            Pick(
                1,
                match_reason(["Scaling laws · 缩放定律"], 1, 1),
                ("Scaling laws · 缩放定律",),
                (5,),
            ),
            "matches your topic Scaling laws · 缩放定律 — 符合你关注的主题",
        ),
        (
            Pick(
                1,
                match_reason(["Scaling laws · 缩放定律"], 3, 4),
                ("Scaling laws · 缩放定律",),
                (5, 6, 7),
            ),
            "matches Scaling laws · 缩放定律 — 3 subscribers · 3 位订阅者",
        ),
        (
            Pick(1, fill_reason(1), kind="fill"),
            "new to this channel, outside your topics · 本频道未推送过，不在你关注的主题内",
        ),
    ],
)
def test_the_embed_says_why_the_paper_was_picked(pick: Pick, footer: str) -> None:
    message = render_digest(DigestPlan((pick,), 1, 3), {1: paper(1)}, HEADER)
    assert message.embeds[0].footer == footer
    # A fill paper is never shown as a match: no topics field.
    names = [f.name for f in message.embeds[0].fields]
    assert ("Topics" in names) is (pick.kind == "match")


def test_no_subscribers_no_mentions() -> None:
    plan = DigestPlan((Pick(1, fill_reason(0), kind="fill"),), 1, 3)
    message = render_digest(plan, {1: paper(1)}, HEADER)
    assert message.mention_user_ids == ()
    assert "<@" not in message.content


def test_many_subscribers_are_cut_to_fit_the_content_limit() -> None:
    subscribers = tuple(10**17 + i for i in range(1000))
    plan, papers = plan_for(10, subscribers=subscribers)
    message = render_digest(plan, papers, HEADER)
    check_limits(message)
    mentioned = tuple(int(m) for m in re.findall(r"<@(\d+)>", message.content))
    assert mentioned == message.mention_user_ids  # allowed == shown, exactly
    assert 50 < len(mentioned) < 1000
    assert f"and {1000 - len(mentioned)} more" in message.content


@pytest.mark.parametrize(
    ("title", "summary"),
    [
        ("T" * 1000, "长" * 10000),
        ("x " * 400, "This is one sentence. " * 500),
        (HOSTILE * 20, HOSTILE * 200),
        ("Normal title", ""),
    ],
)
def test_ten_picks_with_huge_text_stay_within_limits(title: str, summary: str) -> None:
    picks = tuple(Pick(i, "matches: x — 1 subscriber", ("x" * 300,) * 5, (1,)) for i in range(10))
    papers = {i: paper(i, title=title, summary=summary) for i in range(10)}
    message = render_digest(DigestPlan(picks, 10, 100), papers, HEADER)
    check_limits(message)
    assert len(message.embeds) == 10  # the budget is shared, nothing dropped


def test_summary_is_trimmed_at_a_sentence() -> None:
    summary = "第一句话讲方法。" * 200
    plan = DigestPlan((Pick(1, "r", ("a",), (1,)),), 1, 5)
    message = render_digest(plan, {1: paper(1, summary=summary)}, HEADER)
    assert message.embeds[0].description.endswith("。")
    assert len(message.embeds[0].description) < len(summary)


def test_hostile_corpus_text_is_defused() -> None:
    plan = DigestPlan((Pick(1, "matches: " + HOSTILE, (HOSTILE,), (5,)),), 1, 5)
    message = render_digest(plan, {1: paper(1, title=HOSTILE, summary=HOSTILE)}, HEADER)
    text = all_text(message)
    assert "@everyone" not in text
    assert "@here" not in text
    assert "<@&123456789012345678>" not in text
    assert "<@!42>" not in text
    assert message.mention_user_ids == (5,)
    assert re.findall(r"<@[!&]?(\d+)>", message.content) == ["5"]


@pytest.mark.parametrize(
    ("corpus_size", "says", "never_says"),
    [
        (292, "already been posted", "No papers are loaded"),
        (None, "already been posted", "No papers are loaded"),
        (0, "No papers are loaded", "already been posted"),
    ],
)
def test_nothing_left_says_so_honestly(corpus_size: int | None, says: str, never_says: str) -> None:
    message = render_digest(DigestPlan((), 5, 0, corpus_size), {}, HEADER)
    assert message.embeds == ()
    assert message.mention_user_ids == ()
    assert says in message.content
    assert never_says not in message.content
    assert message.content.startswith(HEADER)


def test_last_papers_are_flagged() -> None:
    plan, papers = plan_for(2, remaining=0)
    assert "last papers" in render_digest(plan, papers, HEADER).content
    plan, papers = plan_for(2, remaining=3)
    assert "last papers" not in render_digest(plan, papers, HEADER).content
