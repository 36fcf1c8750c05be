"""A server's feedback version: every changed row of its votes or mutes moves
it by one, whoever changes them (migration 0011's triggers), on both backends;
a database from before the migration starts at its row count."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable
from pathlib import Path

from paperbot.storage import feedback
from paperbot.storage.db import Database, available_migrations
from paperbot.storage.user_data import OwnedTable, delete_rows
from tests.support.app import FIXED_NOW

GUILD, USER, OTHER = 1, 10, 11


async def test_every_changed_row_moves_the_version_by_one(loaded_db: Database) -> None:
    db = loaded_db

    async def moved(change: Awaitable[object]) -> int:
        before = await feedback.feedback_version(db, GUILD)
        await change
        return await feedback.feedback_version(db, GUILD) - before

    assert await feedback.feedback_version(db, GUILD) == 0
    assert await moved(feedback.toggle_vote(db, GUILD, USER, 1, 1, FIXED_NOW)) == 1  # added
    assert await moved(feedback.toggle_vote(db, GUILD, USER, 1, -1, FIXED_NOW)) == 1  # replaced
    assert await moved(feedback.toggle_vote(db, GUILD, USER, 1, -1, FIXED_NOW)) == 1  # removed
    assert await moved(feedback.toggle_vote(db, GUILD, USER, 999_999, 1, FIXED_NOW)) == 0
    assert await moved(feedback.toggle_vote(db, GUILD + 1, USER, 2, 1, FIXED_NOW)) == 0
    for paper in (1, 2, 3):
        await feedback.toggle_vote(db, GUILD, USER, paper, 1, FIXED_NOW)
    assert await moved(feedback.reset_votes(db, GUILD, USER)) == 3

    def mute() -> Awaitable[bool]:
        return feedback.add_mute(db, GUILD, OTHER, "keyword", "gan", "GAN", FIXED_NOW)

    assert await moved(mute()) == 1
    assert await moved(mute()) == 0  # already muted
    assert await moved(feedback.remove_mute(db, GUILD, OTHER, "keyword", "gan")) == 1
    await feedback.toggle_vote(db, GUILD, OTHER, 2, -1, FIXED_NOW)
    await mute()
    tables = [OwnedTable("paper_votes", "voted_at"), OwnedTable("mutes", "created_at")]
    assert await moved(delete_rows(db, tables, GUILD, OTHER)) == 2  # /mydata delete
    assert await feedback.feedback_version(db, GUILD + 1) == 1


async def test_an_older_database_starts_at_its_row_count(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    for _, _, sql in available_migrations()[:9]:
        conn.executescript(sql)
    conn.execute("PRAGMA user_version = 9")
    rows = [(GUILD, USER, "a"), (GUILD, OTHER, "b"), (GUILD + 1, USER, "a")]
    conn.executemany(
        "INSERT INTO paper_votes VALUES (?, ?, ?, 1, '2026-11-30T09:00:00+00:00')", rows
    )
    conn.execute("INSERT INTO mutes VALUES (1, 10, 'keyword', 'gan', 'GAN', '2026')")
    conn.commit()
    conn.close()
    db = await Database.open(path)
    try:
        assert await feedback.feedback_version(db, GUILD) == 3
        assert await feedback.feedback_version(db, GUILD + 1) == 1
        await feedback.reset_votes(db, GUILD, USER)
        assert await feedback.feedback_version(db, GUILD) == 4
    finally:
        await db.close()


async def test_votes_at_once_are_each_counted(loaded_db: Database) -> None:
    # Different readers at once: on PostgreSQL their transactions overlap and
    # queue on the server's counter row; none is lost.
    presses = [
        feedback.toggle_vote(loaded_db, GUILD, 100 + n, 1 + n % 3, 1, FIXED_NOW) for n in range(12)
    ]
    await asyncio.gather(*presses)
    assert await feedback.feedback_version(loaded_db, GUILD) == 12
