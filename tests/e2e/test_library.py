"""`/saved list` and `/saved export` end to end: the real client against the
fake Discord, every request validated against Discord's spec, files included."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from bibtexparser.entrypoint import parse_string
from bibtexparser.middlewares.latex_encoding import LatexDecodingMiddleware

from paperbot.bot import respond
from paperbot.bot.views.saved import unsave_custom_id
from paperbot.core.models import SavedPaper
from tests.fake_discord import FakeDiscord, FakeUser
from tests.support.e2e import E2E, StartBot, stop_bot

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


async def save(e2e: E2E, count: int, user: FakeUser | None = None) -> list[SavedPaper]:
    """The reader saves papers 1..count, paper 1 first (so it is listed last)."""
    user = user or e2e.member
    for paper_id in range(1, count + 1):
        saved = await e2e.bot.app.library.toggle_saved(
            e2e.guild.id, user.id, paper_id, NOW + timedelta(minutes=paper_id)
        )
        assert saved is True
    return await e2e.bot.app.library.saved_papers(e2e.guild.id, user.id)


def unsave_ids(custom_ids: list[str]) -> list[str]:
    return [c for c in custom_ids if c.startswith("paperbot:unsave:")]


async def test_nothing_saved_yet(e2e: E2E) -> None:
    result = await e2e.slash("saved list")
    assert result.ephemeral
    assert "no saved papers in this server yet" in result.text()
    assert result.custom_ids == []


async def test_list_is_private_newest_first_with_an_unsave_button_per_paper(e2e: E2E) -> None:
    saved = await save(e2e, 7)
    result = await e2e.slash("saved list")
    assert result.ephemeral
    assert "Your saved papers in this server: 7 · page 1/2" in result.content
    titles = [embed["title"] for embed in result.embeds]
    assert len(titles) == 5
    assert saved[0].paper.id == 7
    assert result.embeds[0]["url"].startswith("https://arxiv.org/search/?")
    assert unsave_ids(result.custom_ids) == [unsave_custom_id(s.paper.id, 0) for s in saved[:5]]

    page2 = await e2e.click(result.message, result.custom_ids[2])  # Next
    assert "page 2/2" in page2.message["content"]  # type: ignore[index]
    assert unsave_ids(page2.custom_ids) == [unsave_custom_id(s.paper.id, 1) for s in saved[5:]]


async def test_unsave_removes_the_paper_and_redraws_the_list(e2e: E2E) -> None:
    saved = await save(e2e, 3)
    result = await e2e.slash("saved list")
    pressed = await e2e.click(result.message, unsave_custom_id(saved[1].paper.id, 0))
    assert pressed.callback_type == 7  # the list itself is updated
    message = pressed.message
    assert message is not None
    assert message["content"].startswith("Removed **")
    assert "Your saved papers in this server: 2" in message["content"]
    assert unsave_ids(pressed.custom_ids) == [
        unsave_custom_id(saved[0].paper.id, 0),
        unsave_custom_id(saved[2].paper.id, 0),
    ]
    left = await e2e.bot.app.library.saved_ids(e2e.guild.id, e2e.member.id)
    assert left == {saved[0].paper.id, saved[2].paper.id}


async def test_unsaving_the_last_paper_says_the_list_is_empty(e2e: E2E) -> None:
    (only,) = await save(e2e, 1)
    result = await e2e.slash("saved list")
    pressed = await e2e.click(result.message, unsave_custom_id(only.paper.id, 0))
    assert pressed.message is not None
    assert "no saved papers in this server yet" in pressed.message["content"]
    assert pressed.custom_ids == []


async def test_unsave_keeps_working_after_a_restart(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    bot = await start_bot()
    e2e = E2E(fake_discord, bot)
    saved = await save(e2e, 2)
    result = await e2e.slash("saved list")
    await stop_bot(bot)

    reader = e2e.member
    e2e = E2E(fake_discord, await start_bot())
    e2e.member = reader
    pressed = await e2e.click(result.message, unsave_custom_id(saved[0].paper.id, 0))
    assert pressed.message is not None
    assert pressed.message["content"].startswith("Removed **")
    left = await e2e.bot.app.library.saved_ids(e2e.guild.id, e2e.member.id)
    assert left == {saved[1].paper.id}


async def test_export_bibtex_is_an_attached_file_a_parser_reads(e2e: E2E) -> None:
    saved = await save(e2e, 4)
    result = await e2e.slash("saved export", format="bibtex")
    assert result.ephemeral
    assert "4 saved papers, as BibTeX" in result.text()
    (name,) = result.files()
    assert name.startswith("paperbot-saved-")
    assert name.endswith(".bib")
    library = parse_string(
        result.files()[name].decode("utf-8"), append_middleware=[LatexDecodingMiddleware()]
    )
    assert library.failed_blocks == []
    assert [e.fields_dict["title"].value for e in library.entries] == [s.paper.title for s in saved]
    upload = next(r for r in e2e.fake.requests if r.uploads)
    assert upload.path.endswith("/callback")


async def test_export_every_format(e2e: E2E) -> None:
    saved = await save(e2e, 2)
    for fmt, ext in (("markdown", "md"), ("csv", "csv"), ("json", "json")):
        result = await e2e.slash("saved export", format=fmt)
        ((name, data),) = result.files().items()
        assert name.endswith(f".{ext}")
        assert saved[0].paper.title in data.decode("utf-8-sig")
    records = json.loads(data)
    assert [r["title"] for r in records] == [s.paper.title for s in saved]


async def test_export_with_nothing_saved_sends_no_file(e2e: E2E) -> None:
    result = await e2e.slash("saved export", format="bibtex")
    assert "no saved papers in this server to export" in result.text()
    assert result.files() == {}


async def test_saved_lists_are_per_reader(e2e: E2E) -> None:
    other = FakeUser(name="other reader")
    await save(e2e, 2, user=other)
    result = await e2e.slash("saved list")
    assert "no saved papers" in result.text()


async def test_in_chinese(e2e: E2E) -> None:
    await save(e2e, 1)
    result = await e2e.slash("saved list", locale="zh-CN")
    assert "你在本服务器收藏的论文：1 篇" in result.content
    labels = [c["label"] for row in result.message["components"] for c in row["components"]]  # type: ignore[index]
    assert labels == ["取消收藏 1"]


async def test_someone_else_pressing_unsave_changes_nothing(e2e: E2E) -> None:
    # The list is ephemeral; a press by anyone else must still act on no one's data.
    saved = await save(e2e, 2)
    result = await e2e.slash("saved list")
    pressed = await e2e.click(
        result.message, unsave_custom_id(saved[0].paper.id, 0), user=FakeUser(name="other")
    )
    assert "someone else's list" in pressed.text()
    assert len(await e2e.bot.app.library.saved_ids(e2e.guild.id, e2e.member.id)) == 2


async def test_a_slow_unsave_defers_then_redraws_the_list(
    e2e: E2E, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Behind a busy database the press is acknowledged first (the message
    will change), then the list is redrawn by editing it."""
    saved = await save(e2e, 2)
    result = await e2e.slash("saved list")
    monkeypatch.setattr(respond, "DEFER_AFTER_SECONDS", 0.2)
    library = e2e.bot.app.library
    real_unsave = library.unsave

    async def slow_unsave(*args: Any) -> Any:
        await asyncio.sleep(0.5)
        return await real_unsave(*args)

    monkeypatch.setattr(library, "unsave", slow_unsave)
    pressed = await e2e.click(result.message, unsave_custom_id(saved[0].paper.id, 0))
    assert pressed.callback_type == 6  # deferred: the list itself will change
    message = pressed.message
    assert message is not None
    assert message["content"].startswith("Removed **")
    assert unsave_ids(pressed.custom_ids) == [unsave_custom_id(saved[1].paper.id, 0)]
    assert await library.saved_ids(e2e.guild.id, e2e.member.id) == {saved[1].paper.id}
