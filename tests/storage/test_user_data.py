"""storage.user_data on a real SQLite file: per-user deletes, guarded guild purges."""

from __future__ import annotations

from datetime import timedelta

import pytest

from paperbot.storage import saved, user_data
from paperbot.storage.db import Database
from paperbot.storage.user_data import OwnedTable
from tests.support.app import FIXED_NOW

SAVED = OwnedTable("saved_papers", "saved_at")
GUILD, USER = 1, 10


async def test_delete_rows_is_per_user(loaded_db: Database) -> None:
    await saved.toggle(loaded_db, GUILD, USER, 1, FIXED_NOW)
    await saved.toggle(loaded_db, GUILD, USER + 1, 1, FIXED_NOW)
    assert await user_data.delete_rows(loaded_db, [SAVED], GUILD, USER) == {"saved_papers": 1}
    assert await user_data.count_rows(loaded_db, SAVED, GUILD, USER) == 0
    assert await user_data.count_rows(loaded_db, SAVED, GUILD, None) == 1


async def test_export_rows_names_every_column(loaded_db: Database) -> None:
    await saved.toggle(loaded_db, GUILD, USER, 1, FIXED_NOW)
    (row,) = await user_data.export_rows(loaded_db, SAVED, GUILD, USER)
    assert set(row) == {"guild_id", "user_id", "paper_key", "saved_at"}
    assert row["saved_at"] == FIXED_NOW.isoformat()


async def test_purge_only_a_guild_that_is_still_gone_and_due(loaded_db: Database) -> None:
    await saved.toggle(loaded_db, GUILD, USER, 1, FIXED_NOW)
    # Not gone at all (or came back): nothing is deleted.
    assert await user_data.purge_guild(loaded_db, [SAVED], GUILD, FIXED_NOW) is None
    await user_data.record_departure(loaded_db, GUILD, FIXED_NOW)
    # Left after the cut-off: still in its grace period.
    before = FIXED_NOW - timedelta(seconds=1)
    assert await user_data.purge_guild(loaded_db, [SAVED], GUILD, before) is None
    assert await user_data.purge_guild(loaded_db, [SAVED], GUILD, FIXED_NOW) == {"saved_papers": 1}
    assert await user_data.departures(loaded_db) == []


async def test_rows_survive_a_cancelled_departure(db: Database) -> None:
    await user_data.record_departure(db, GUILD, FIXED_NOW)
    assert await user_data.cancel_departure(db, GUILD) is True
    assert await user_data.cancel_departure(db, GUILD) is False
    assert await user_data.departures(db) == []


async def test_a_table_that_follows_the_reader_across_servers(db: Database) -> None:
    # Borrow saved_papers' shape: rows keyed by user only are counted and deleted
    # for the user whatever the server, and never by a server purge.
    everywhere = OwnedTable("saved_papers", "saved_at", per_guild=False)
    async with db.transaction() as tx:
        await tx.execute(
            "INSERT INTO saved_papers VALUES (?, ?, ?, ?), (?, ?, ?, ?)",
            (GUILD, USER, "a", "t", GUILD + 1, USER, "b", "t"),
        )
    assert await user_data.count_rows(db, everywhere, GUILD, USER) == 2
    assert await user_data.delete_rows(db, [everywhere], GUILD, USER) == {"saved_papers": 2}


@pytest.mark.parametrize(
    ("table", "user_id", "problem"),
    [
        (OwnedTable("digest_settings", "guild_id", per_user=False), USER, "no per-user rows"),
        (OwnedTable("saved_papers", "saved_at", per_guild=False), None, "no per-server rows"),
    ],
)
def test_where_refuses_rows_a_table_does_not_have(
    table: OwnedTable, user_id: int | None, problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        table.where(GUILD, user_id)


def test_a_table_must_belong_to_someone() -> None:
    with pytest.raises(ValueError, match="must belong"):
        OwnedTable("saved_papers", "saved_at", per_user=False, per_guild=False)
