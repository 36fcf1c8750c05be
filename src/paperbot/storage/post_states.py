"""The delivery states every digest post goes through, for server posts and
personal DMs alike: claimed -> sent -> confirmed, or closed as failed/expired.

The two kinds keep their rows in their own tables (`PostTables`); the state
changes are the same statements over either pair.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from paperbot.storage.backend import Database


@dataclass(frozen=True, slots=True)
class PostTables:
    """A kind of post: its table, and the table of papers it marked as seen
    (rows freed when the post fails for good). Names come from code only."""

    posts: str
    seen: str


SERVER_POSTS = PostTables("digest_posts", "digest_posted")
PERSONAL_POSTS = PostTables("personal_posts", "personal_received")


async def mark_sent(db: Database, tables: PostTables, post_id: int, now: datetime) -> None:
    """The request is about to leave: from now on the post may exist."""
    async with db.transaction() as conn:
        await conn.execute(
            f"UPDATE {tables.posts} SET state = 'sent', sent_at = ?, attempts = attempts + 1"
            " WHERE id = ? AND state IN ('claimed', 'sent')",
            (now.isoformat(), post_id),
        )


async def confirm(db: Database, tables: PostTables, post_id: int, message_id: int) -> None:
    async with db.transaction() as conn:
        await conn.execute(
            f"UPDATE {tables.posts} SET state = 'confirmed', message_id = ?, error = NULL"
            " WHERE id = ?",
            (message_id, post_id),
        )


async def close_post(
    db: Database,
    tables: PostTables,
    post_id: int,
    state: Literal["failed", "expired"],
    error: str,
    *,
    free_papers: bool = True,
) -> None:
    """End a post that was not delivered; its papers become pickable again
    unless it may have gone out after all (`free_papers=False`)."""
    async with db.transaction() as conn:
        await conn.execute(
            f"UPDATE {tables.posts} SET state = ?, error = ? WHERE id = ?",
            (state, error, post_id),
        )
        if free_papers:
            await conn.execute(f"DELETE FROM {tables.seen} WHERE post_id = ?", (post_id,))


async def note_error(db: Database, tables: PostTables, post_id: int, error: str) -> None:
    """Keep a post open (outcome unknown) but remember why the last try failed."""
    async with db.transaction() as conn:
        await conn.execute(f"UPDATE {tables.posts} SET error = ? WHERE id = ?", (error, post_id))
