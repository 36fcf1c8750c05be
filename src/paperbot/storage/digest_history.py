"""SQL for the digest archive: a server's confirmed posts and their picks."""

from __future__ import annotations

import json
from datetime import date

from paperbot.core.digest_history import ArchivedPick, ArchivedPost
from paperbot.storage.backend import Database, dialect_sql


async def confirmed_posts(
    db: Database, guild_id: int, *, until: date | None = None, limit: int = 500
) -> list[ArchivedPost]:
    """A server's delivered posts, newest first (up to `until`, a local date).

    Picks are named by key, so a paper retired since still shows its title.
    """
    # The filter is added rather than written `? IS NULL OR ...`: PostgreSQL
    # cannot type a parameter that is only tested for NULL.
    sql = (
        "SELECT channel_id, message_id, local_date, kind, paper_keys FROM digest_posts"
        " WHERE guild_id = ? AND state = 'confirmed' AND message_id IS NOT NULL"
    )
    params: tuple[object, ...] = (guild_id,)
    if until is not None:
        sql += " AND local_date <= ?"
        params += (until.isoformat(),)
    rows = await db.fetch_all(sql + " ORDER BY local_date DESC, id DESC LIMIT ?", (*params, limit))
    keys = sorted({key for row in rows for key in json.loads(row[4])})
    listed = dialect_sql(
        db, sqlite="json_each(?)", postgresql="jsonb_array_elements_text(?::jsonb) AS value"
    )
    papers = {
        str(key): ArchivedPick(str(title), str(venue), int(year))
        for key, title, venue, year in await db.fetch_all(
            f"SELECT key, title, venue, year FROM papers WHERE key IN (SELECT value FROM {listed})",
            (json.dumps(keys, ensure_ascii=False),),
        )
    }
    return [
        ArchivedPost(
            guild_id=guild_id,
            channel_id=int(channel),
            message_id=int(message),
            local_date=date.fromisoformat(day),
            extra=kind == "manual",
            picks=tuple(papers[k] for k in json.loads(paper_keys) if k in papers),
        )
        for channel, message, day, kind, paper_keys in rows
    ]
