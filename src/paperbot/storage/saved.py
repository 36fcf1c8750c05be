"""Every SQL statement about a reader's saved papers.

Rows name papers by their stable key, so a corpus change never removes them;
reads join `papers` on the key (retired papers keep their row) to show them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from paperbot.core.models import SavedPaper
from paperbot.storage.backend import Database
from paperbot.storage.papers import PAPER_COLUMNS, paper_from_row


async def toggle(
    db: Database, guild_id: int, user_id: int, paper_id: int, now: datetime
) -> bool | None:
    """Save the paper, or unsave it if it was saved. True when it is saved now,
    False when it was removed, None when no paper has that id."""
    async with db.transaction() as conn:
        await conn.lock(f"saved:{guild_id}:{user_id}")
        row = await db.fetch_one("SELECT key FROM papers WHERE id = ?", (paper_id,))
        if row is None:
            return None
        key = (guild_id, user_id, row[0])
        cur = await conn.execute(
            "DELETE FROM saved_papers WHERE guild_id = ? AND user_id = ? AND paper_key = ?", key
        )
        if cur.rowcount:
            return False
        await conn.execute(
            "INSERT INTO saved_papers (guild_id, user_id, paper_key, saved_at) VALUES (?, ?, ?, ?)",
            (*key, now.isoformat()),
        )
    return True


async def remove(db: Database, guild_id: int, user_id: int, paper_id: int) -> bool:
    """Unsave; False when it was not saved."""
    sql = (
        "DELETE FROM saved_papers WHERE guild_id = ? AND user_id = ?"
        " AND paper_key = (SELECT key FROM papers WHERE id = ?)"
    )
    async with db.transaction() as conn:
        cur = await conn.execute(sql, (guild_id, user_id, paper_id))
    return bool(cur.rowcount)


async def saved_ids(db: Database, guild_id: int, user_id: int) -> set[int]:
    """Ids of the papers this reader saved in this server."""
    sql = (
        "SELECT p.id FROM saved_papers AS s JOIN papers AS p ON p.key = s.paper_key"
        " WHERE s.guild_id = ? AND s.user_id = ?"
    )
    return {int(row[0]) for row in await db.fetch_all(sql, (guild_id, user_id))}


async def list_saved(db: Database, guild_id: int, user_id: int) -> list[SavedPaper]:
    """This reader's saved papers in this server, newest first."""
    columns = ", ".join(f"p.{c}" for c in PAPER_COLUMNS)
    sql = (
        f"SELECT {columns}, s.saved_at, p.retired_at IS NOT NULL FROM saved_papers AS s"
        " JOIN papers AS p ON p.key = s.paper_key WHERE s.guild_id = ? AND s.user_id = ?"
        " ORDER BY s.saved_at DESC, p.id DESC"
    )
    return [_saved(row) for row in await db.fetch_all(sql, (guild_id, user_id))]


def _saved(row: Sequence[Any]) -> SavedPaper:
    *paper, saved_at, retired = row
    return SavedPaper(paper_from_row(paper), datetime.fromisoformat(saved_at), bool(retired))
