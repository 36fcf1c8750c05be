"""The digest archive's pure parts: dates typed by users, pages within Discord's limits."""

from __future__ import annotations

from datetime import date

import pytest

from paperbot.core import limits
from paperbot.core.digest_history import (
    POSTS_PER_PAGE,
    ArchivedPick,
    ArchivedPost,
    history_json,
    history_pages,
    parse_date,
    post_embed,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-30", date(2026, 11, 30)),
        (" 2026/1/5 ", date(2026, 1, 5)),
        ("2026年11月30日", date(2026, 11, 30)),
        ("２０２６－１１－３０", date(2026, 11, 30)),
        ("2026-02-30", None),
        ("yesterday", None),
        ("30-11-2026", None),
        ("", None),
    ],
)
def test_parse_date(text: str, expected: date | None) -> None:
    assert parse_date(text) == expected


def post(day: int, titles: list[str], *, extra: bool = False) -> ArchivedPost:
    return ArchivedPost(
        guild_id=1,
        channel_id=2,
        message_id=100 + day,
        local_date=date(2026, 11, day),
        extra=extra,
        picks=tuple(ArchivedPick(t, "ICLR", 2026) for t in titles),
    )


@pytest.mark.parametrize(
    ("posts", "picks", "title_chars", "pages"),
    [
        (1, 3, 20, 1),
        (POSTS_PER_PAGE, 3, 20, 1),
        (POSTS_PER_PAGE + 1, 3, 20, 2),
        (12, 3, 20, 3),
        # Ten picks with long titles make long search links: fewer posts per
        # page, never over 6,000 characters.
        (5, 10, 20, 2),
        (5, 10, 480, 5),
    ],
)
def test_pages_stay_within_discord_limits(
    posts: int, picks: int, title_chars: int, pages: int
) -> None:
    archive = [
        post(30 - i, [f"{i}{j} " + "x" * title_chars for j in range(picks)]) for i in range(posts)
    ]
    rendered = history_pages(archive)
    assert len(rendered) == pages
    shown = [e for page in rendered for e in page.embeds]
    assert [e.url for e in shown] == [p.jump_url for p in archive]  # newest first, all kept
    for page in rendered:
        assert len(page.embeds) <= POSTS_PER_PAGE
        assert sum(e.size() for e in page.embeds) <= limits.EMBED_TOTAL_MAX
        assert all(len(e.description) <= limits.EMBED_DESCRIPTION_MAX for e in page.embeds)
        assert page.mention_user_ids == ()


def test_embed_names_date_kind_picks_and_jump_link() -> None:
    embed = post_embed(post(30, ["Scaling [laws] @everyone"], extra=True))
    assert embed.title == "Extra digest — 2026-11-30"
    assert embed.url == "https://discord.com/channels/1/2/130"
    assert "1. [Scaling (laws) @\u200beveryone](https://arxiv.org/search/" in embed.description
    assert embed.description.endswith("(https://discord.com/channels/1/2/130)")


def test_json() -> None:
    [data] = history_json([post(29, ["A"])])
    assert data["date"] == "2026-11-29"
    assert data["kind"] == "daily"
    picks = data["picks"]
    assert isinstance(picks, list)
    [pick] = picks
    assert pick["title"] == "A"
    assert pick["url"].startswith("https://arxiv.org/search/")
