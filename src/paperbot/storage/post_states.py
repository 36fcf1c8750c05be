"""The delivery states every digest post goes through, for server posts and
personal DMs alike: claimed -> sent -> confirmed, or closed as failed/expired.

The two kinds keep their rows in their own tables (`PostTables`); the state
changes, and the columns every post has (`PostRecord`) with their decoding,
are the same over either pair. `storage.digests` and `storage.personal`
expose the changes as their own `mark_sent`, `confirm`, `close_post` and
`note_error`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal, TypeVar

from paperbot.core.models import PostRecord
from paperbot.storage.backend import Database, dialect_sql
from paperbot.storage.messages import decode_message

Post = TypeVar("Post", bound=PostRecord)
# The columns of `PostTables.columns`, before a kind's own.
_RECORD_COLUMNS = 13


@dataclass(frozen=True, slots=True)
class PostTables:
    """A kind of post: its table, and the table of papers it marked as seen
    (rows freed when the post fails for good). Names come from code only."""

    posts: str
    seen: str

    def columns(self, db: Database) -> str:
        """The columns of a `PostRecord`, for `decode_post` (a kind's own follow)."""
        return (
            "id, local_date, nonce, header, "
            + self.paper_ids(db)
            + ", message, state, claimed_at, deadline, sent_at, attempts, message_id, error"
        )

    def paper_ids(self, db: Database) -> str:
        """A column: the post's papers by id, in post order, as a JSON list.

        History names papers by key (migration 0005); callers work with ids,
        which stay stable because papers are retired, never deleted. A key
        whose paper row is gone (`paperbot doctor` reports it) drops out."""
        return dialect_sql(
            db,
            sqlite="(SELECT json_group_array(picked.id) FROM (SELECT p.id AS id"
            f" FROM json_each({self.posts}.paper_keys) AS k JOIN papers AS p ON p.key = k.value"
            " ORDER BY k.key) AS picked)",
            postgresql="(SELECT coalesce(json_agg(p.id ORDER BY k.ord), '[]')::text"
            f" FROM jsonb_array_elements_text({self.posts}.paper_keys)"
            " WITH ORDINALITY AS k(value, ord) JOIN papers AS p ON p.key = k.value)",
        )

    async def mark_sent(self, db: Database, post_id: int, now: datetime) -> None:
        """The request is about to leave: from now on the post may exist."""
        async with db.transaction() as conn:
            await conn.execute(
                f"UPDATE {self.posts} SET state = 'sent', sent_at = ?, attempts = attempts + 1"
                " WHERE id = ? AND state IN ('claimed', 'sent')",
                (now.isoformat(), post_id),
            )

    async def confirm(self, db: Database, post_id: int, message_id: int) -> None:
        async with db.transaction() as conn:
            await conn.execute(
                f"UPDATE {self.posts} SET state = 'confirmed', message_id = ?, error = NULL"
                " WHERE id = ?",
                (message_id, post_id),
            )

    async def close_post(
        self,
        db: Database,
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
                f"UPDATE {self.posts} SET state = ?, error = ? WHERE id = ?",
                (state, error, post_id),
            )
            if free_papers:
                await conn.execute(f"DELETE FROM {self.seen} WHERE post_id = ?", (post_id,))

    async def note_error(self, db: Database, post_id: int, error: str) -> None:
        """Keep a post open (outcome unknown) but remember why the last try failed."""
        async with db.transaction() as conn:
            await conn.execute(f"UPDATE {self.posts} SET error = ? WHERE id = ?", (error, post_id))


def decode_post(cls: type[Post], row: Sequence[Any], /, **own: Any) -> Post:
    """A post from a row read with `PostTables.columns`; `own` are the
    kind's own fields (decoded by the caller from `own_columns(row)`)."""
    pid, day, nonce, header, ids, message, state, *rest = row[:_RECORD_COLUMNS]
    claimed, deadline, sent, attempts, mid, err = rest
    return cls(
        id=int(pid),
        local_date=date.fromisoformat(day),
        nonce=str(nonce),
        header=str(header),
        paper_ids=tuple(int(i) for i in json.loads(ids)),
        message=decode_message(message),
        state=state,
        claimed_at=datetime.fromisoformat(claimed),
        deadline=datetime.fromisoformat(deadline),
        sent_at=datetime.fromisoformat(sent) if sent else None,
        attempts=int(attempts),
        message_id=int(mid) if mid is not None else None,
        error=err,
        **own,
    )


def own_columns(row: Sequence[Any]) -> Sequence[Any]:
    """The kind's own columns of a row read with `PostTables.columns`."""
    return row[_RECORD_COLUMNS:]


SERVER_POSTS = PostTables("digest_posts", "digest_posted")
PERSONAL_POSTS = PostTables("personal_posts", "personal_received")
