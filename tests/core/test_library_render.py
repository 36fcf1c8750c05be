"""/saved pages and /mydata texts as plain data."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from paperbot.core import limits
from paperbot.core.library_render import (
    SavedPages,
    deleted_summary,
    mydata_file,
    mydata_summary,
    unsaved_text,
)
from paperbot.core.models import Paper, SavedPaper

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def saved(count: int, summary: str = "摘要。" * 400) -> list[SavedPaper]:
    return [
        SavedPaper(
            Paper(i, f"Paper @everyone {i}", "ICML", 2024, "预训练", (summary,), ("x.txt",)),
            NOW,
            retired=False,
        )
        for i in range(1, count + 1)
    ]


@pytest.mark.parametrize(
    ("count", "pages", "last_page_ids"),
    [(1, 1, [1]), (5, 1, [1, 2, 3, 4, 5]), (6, 2, [6]), (11, 3, [11])],
)
def test_pages_and_what_each_shows(count: int, pages: int, last_page_ids: list[int]) -> None:
    rendered = SavedPages(saved(count))
    assert len(rendered) == pages
    assert [s.paper.id for s in rendered.on_page(pages - 1)] == last_page_ids
    last = rendered[pages - 1]
    assert f"{count} · page {pages}/{pages}" in last.content
    assert len(last.embeds) == len(last_page_ids)


def test_pages_fit_discords_limits_and_defuse_mentions() -> None:
    for page in SavedPages(saved(10)):
        assert sum(e.size() for e in page.embeds) <= limits.EMBED_TOTAL_MAX
        assert all("@everyone" not in e.title for e in page.embeds)


def test_no_pages_without_papers() -> None:
    with pytest.raises(ValueError, match="no saved papers"):
        SavedPages([])


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ([("Saved papers", 0)], "paperbot stores nothing about you in this server."),
        ([("Saved papers", 2), ("Votes", 0)], "• Saved papers: 2"),
    ],
)
def test_mydata_summary(rows: list[tuple[str, int]], expected: str) -> None:
    text = mydata_summary(rows)
    assert expected in text
    assert "Votes" not in text


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ([("Saved papers", 0)], "There was nothing to delete"),
        ([("Saved papers", 3)], "• Saved papers: 3"),
    ],
)
def test_deleted_summary(rows: list[tuple[str, int]], expected: str) -> None:
    assert expected in deleted_summary(rows)


def test_unsaved_text_escapes_the_title() -> None:
    assert unsaved_text("a *bold* <@123> title") == (
        "Removed **a \\*bold\\* <@\u200b123> title** from your saved papers."
    )


def test_mydata_file_is_json_with_string_snowflakes() -> None:
    exported = mydata_file(1, 2, {"saved_papers": [{"title": "中文"}]}, NOW)
    assert exported.filename == "paperbot-mydata-2026-11-30.json"
    document = json.loads(exported.data)
    assert document["guild_id"] == "1"
    assert document["user_id"] == "2"
    assert document["data"]["saved_papers"][0]["title"] == "中文"
    assert "中文".encode() in exported.data  # UTF-8, not \\u escapes
