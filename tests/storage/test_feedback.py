"""Votes and mutes in SQLite: toggle semantics, scopes, surviving corpus changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperbot.core.profile import Mute, Vote
from paperbot.storage import feedback, papers
from paperbot.storage.db import Database
from tests.support.app import FIXED_NOW
from tests.support.corpus import load_pages as load
from tests.support.corpus import page, write

GUILD, USER, OTHER = 1, 10, 11


@pytest.mark.parametrize(
    ("presses", "outcomes", "stored"),
    [
        ([1], ["added"], [1]),
        ([1, 1], ["added", "removed"], []),
        ([1, -1], ["added", "replaced"], [-1]),
        ([-1, -1, -1], ["added", "removed", "added"], [-1]),
    ],
)
async def test_vote_toggles(
    loaded_db: Database, presses: list[int], outcomes: list[str], stored: list[int]
) -> None:
    got = [
        await feedback.toggle_vote(loaded_db, GUILD, USER, 1, value, FIXED_NOW) for value in presses
    ]
    assert got == outcomes
    assert [v.value for v in await feedback.guild_votes(loaded_db, GUILD, USER)] == stored


async def test_votes_are_per_reader_and_server(loaded_db: Database) -> None:
    await feedback.toggle_vote(loaded_db, GUILD, USER, 1, 1, FIXED_NOW)
    await feedback.toggle_vote(loaded_db, GUILD, OTHER, 1, -1, FIXED_NOW)
    await feedback.toggle_vote(loaded_db, GUILD + 1, USER, 2, -1, FIXED_NOW)
    assert await feedback.guild_votes(loaded_db, GUILD) == [Vote(USER, 1, 1), Vote(OTHER, 1, -1)]
    assert await feedback.count_votes(loaded_db, GUILD, USER) == (1, 0)
    assert await feedback.reset_votes(loaded_db, GUILD, USER) == 1
    assert await feedback.guild_votes(loaded_db, GUILD) == [Vote(OTHER, 1, -1)]


async def test_unknown_paper_and_bad_value(loaded_db: Database) -> None:
    assert await feedback.toggle_vote(loaded_db, GUILD, USER, 999_999, 1, FIXED_NOW) is None
    with pytest.raises(ValueError, match="vote"):
        await feedback.toggle_vote(loaded_db, GUILD, USER, 1, 2, FIXED_NOW)


async def test_vote_survives_its_paper_leaving_and_coming_back(
    db: Database, tmp_path: Path
) -> None:
    path = write(tmp_path / "icml-2025.txt", page("Alpha Paper", "Beta Paper", "Gamma Paper"))
    await load(db, path)
    gamma = next(p.id for p in await papers.list_papers(db) if p.title == "Gamma Paper")
    await feedback.toggle_vote(db, GUILD, USER, gamma, -1, FIXED_NOW)
    write(path, page("Alpha Paper", "Beta Paper"))
    await load(db, path, allow_shrink=True)
    # A retired paper steers nothing, but the vote is kept.
    assert await feedback.guild_votes(db, GUILD, USER) == []
    assert await feedback.count_votes(db, GUILD, USER) == (0, 1)
    write(path, page("Alpha Paper", "Beta Paper", "Gamma Paper"))
    await load(db, path)
    assert [v.value for v in await feedback.guild_votes(db, GUILD, USER)] == [-1]


async def test_mutes_for_a_reader_and_the_server(loaded_db: Database) -> None:
    assert await feedback.add_mute(loaded_db, GUILD, USER, "topic", "rlhf", "RLHF", FIXED_NOW)
    assert not await feedback.add_mute(loaded_db, GUILD, USER, "topic", "rlhf", "RLHF", FIXED_NOW)
    server = feedback.SERVER
    await feedback.add_mute(loaded_db, GUILD, server, "keyword", "gan", "GAN", FIXED_NOW)
    await feedback.add_mute(loaded_db, GUILD, OTHER, "keyword", "vit", "ViT", FIXED_NOW)
    mine = await feedback.guild_mutes(loaded_db, GUILD, USER)
    assert {(m.user_id, m.topic) for m in mine} == {(USER, "rlhf"), (0, "gan")}
    assert len(await feedback.guild_mutes(loaded_db, GUILD)) == 3
    assert await feedback.remove_mute(loaded_db, GUILD, USER, "topic", "rlhf")
    assert not await feedback.remove_mute(loaded_db, GUILD, USER, "topic", "rlhf")
    assert await feedback.guild_mutes(loaded_db, GUILD, USER) == [Mute(0, "keyword", "gan", "GAN")]
