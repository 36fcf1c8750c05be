"""Every SQL statement about reader feedback: 👍/👎 votes and mutes.

Votes and mutes name papers and topics by stable keys (never a foreign key
into `papers`), so a corpus change never removes what a reader said. Reads
join `papers` on the key and leave retired papers out: a vote on a paper
that is gone no longer steers anything, but it is kept.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from paperbot.core.models import SubscriptionKind as Kind
from paperbot.core.profile import Mute, Vote
from paperbot.storage.backend import Database

VoteOutcome = Literal["added", "replaced", "removed"]
SERVER = 0
"""The user id of a server-level mute (Discord ids are never 0)."""


async def toggle_vote(
    db: Database, guild_id: int, user_id: int, paper_id: int, value: int, now: datetime
) -> VoteOutcome | None:
    """Vote `value` (+1 or -1): the same vote again undoes it, the other vote
    replaces it. None when no paper has that id."""
    if value not in (-1, 1):
        raise ValueError("a vote is +1 or -1")
    async with db.transaction() as conn:
        # Two presses at once (two processes on PostgreSQL) take turns.
        await conn.lock(f"vote:{guild_id}:{user_id}")
        row = await db.fetch_one("SELECT key FROM papers WHERE id = ?", (paper_id,))
        if row is None:
            return None
        key = (guild_id, user_id, row[0])
        old = await db.fetch_one(
            "SELECT value FROM paper_votes WHERE guild_id = ? AND user_id = ? AND paper_key = ?",
            key,
        )
        if old is not None and int(old[0]) == value:
            await conn.execute(
                "DELETE FROM paper_votes WHERE guild_id = ? AND user_id = ? AND paper_key = ?",
                key,
            )
            return "removed"
        await conn.execute(
            "INSERT INTO paper_votes (guild_id, user_id, paper_key, value, voted_at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, user_id, paper_key)"
            " DO UPDATE SET value = excluded.value, voted_at = excluded.voted_at",
            (*key, value, now.isoformat()),
        )
    return "added" if old is None else "replaced"


async def guild_votes(db: Database, guild_id: int, user_id: int | None = None) -> list[Vote]:
    """Votes in a server on papers still loaded (one user's when given), oldest first."""
    sql = (
        "SELECT v.user_id, p.id, v.value FROM paper_votes AS v"
        " JOIN papers AS p ON p.key = v.paper_key"
        " WHERE v.guild_id = ? AND p.retired_at IS NULL"
    )
    params: tuple[int, ...] = (guild_id,)
    if user_id is not None:
        sql += " AND v.user_id = ?"
        params = (guild_id, user_id)
    sql += " ORDER BY v.voted_at, v.user_id, p.id"
    rows = await db.fetch_all(sql, params)
    return [Vote(int(r[0]), int(r[1]), int(r[2])) for r in rows]


async def count_votes(db: Database, guild_id: int, user_id: int) -> tuple[int, int]:
    """(👍, 👎) a reader gave in a server, retired papers included."""
    row = await db.fetch_one(
        "SELECT coalesce(sum(CASE WHEN value > 0 THEN 1 ELSE 0 END), 0),"
        " coalesce(sum(CASE WHEN value < 0 THEN 1 ELSE 0 END), 0) FROM paper_votes"
        " WHERE guild_id = ? AND user_id = ?",
        (guild_id, user_id),
    )
    return (int(row[0]), int(row[1])) if row is not None else (0, 0)


async def guild_voters(db: Database, guild_id: int) -> frozenset[int]:
    """The readers who have votes in a server."""
    rows = await db.fetch_all(
        "SELECT DISTINCT user_id FROM paper_votes WHERE guild_id = ?", (guild_id,)
    )
    return frozenset(int(r[0]) for r in rows)


async def reset_votes(db: Database, guild_id: int, user_id: int) -> int:
    """Forget a reader's votes in a server; how many were removed."""
    async with db.transaction() as conn:
        cur = await conn.execute(
            "DELETE FROM paper_votes WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
        )
    return int(cur.rowcount)


async def add_mute(
    db: Database, guild_id: int, user_id: int, kind: Kind, topic: str, label: str, now: datetime
) -> bool:
    """Mute a topic for a reader (or the server with `SERVER`); False when it already was."""
    async with db.transaction() as conn:
        cur = await conn.execute(
            "INSERT INTO mutes (guild_id, user_id, kind, topic, label, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (guild_id, user_id, kind, topic, label, now.isoformat()),
        )
    return bool(cur.rowcount)


async def remove_mute(db: Database, guild_id: int, user_id: int, kind: Kind, topic: str) -> bool:
    """Unmute; False when it was not muted."""
    async with db.transaction() as conn:
        cur = await conn.execute(
            "DELETE FROM mutes WHERE guild_id = ? AND user_id = ? AND kind = ? AND topic = ?",
            (guild_id, user_id, kind, topic),
        )
    return bool(cur.rowcount)


async def guild_mutes(db: Database, guild_id: int, user_id: int | None = None) -> list[Mute]:
    """Mutes in a server (one reader's and the server's when `user_id` is given), oldest first."""
    sql = "SELECT user_id, kind, topic, label FROM mutes WHERE guild_id = ?"
    params: tuple[int, ...] = (guild_id,)
    if user_id is not None:
        sql += " AND user_id IN (?, ?)"
        params = (guild_id, user_id, SERVER)
    rows = await db.fetch_all(sql + " ORDER BY created_at, user_id, topic", params)
    return [Mute(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]  # type: ignore[arg-type]


async def feedback_version(db: Database, guild_id: int) -> int:
    """How many rows of the server's votes and mutes were ever changed (0:
    none yet): counted by triggers (migration 0011), whatever made the change,
    so an unchanged number means unchanged votes and mutes."""
    row = await db.fetch_one(
        "SELECT version FROM feedback_versions WHERE guild_id = ?", (guild_id,)
    )
    return int(row[0]) if row is not None else 0
