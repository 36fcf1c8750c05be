"""Every SQL statement about the daily digest.

Exactly-once posting rests on three writes, each its own transaction:
`claim` (the unique (guild, local date) row, with the picks and the papers
marked as seen), `mark_sent` just before the request leaves, and `confirm`
with the message id. A crash leaves a row in `claimed` (nothing went out)
or `sent` (it may have gone out), which start-up resolves.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date, datetime, time
from typing import Any

from paperbot.core.models import DigestPost, DigestSettings, PostKind
from paperbot.core.render import MessageData
from paperbot.storage import post_states
from paperbot.storage.backend import Database, Transaction, dialect_sql
from paperbot.storage.db import ConstraintError
from paperbot.storage.messages import encode_message

#: Every process hears a server's schedule change here (payload: the guild id).
SETTINGS_CHANNEL = "paperbot_digest_settings"
_SETTINGS_COLUMNS = (
    "guild_id, channel_id, post_time, timezone, count, enabled, active_since,"
    " updated_by, updated_at, failure, failure_at"
)


def _post_columns(db: Database) -> str:
    return post_states.SERVER_POSTS.columns(db) + ", guild_id, channel_id, kind"


async def save_settings(
    db: Database,
    *,
    guild_id: int,
    channel_id: int,
    post_time: time,
    timezone: str,
    count: int,
    updated_by: int | None,
    now: datetime,
) -> DigestSettings:
    """Create or replace a server's schedule, enabled, active from `now`.

    A new setup also clears a recorded failure: the admin has just fixed it.
    """
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO digest_settings (guild_id, channel_id, post_time, timezone, count,"
            " enabled, active_since, updated_by, updated_at, failure, failure_at)"
            " VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, NULL, NULL)"
            " ON CONFLICT (guild_id) DO UPDATE SET channel_id = excluded.channel_id,"
            " post_time = excluded.post_time, timezone = excluded.timezone,"
            " count = excluded.count, enabled = 1, active_since = excluded.active_since,"
            " updated_by = excluded.updated_by, updated_at = excluded.updated_at,"
            " failure = NULL, failure_at = NULL",
            (
                guild_id,
                channel_id,
                f"{post_time:%H:%M}",
                timezone,
                count,
                now.isoformat(),
                updated_by,
                now.isoformat(),
            ),
        )
    await db.notify(SETTINGS_CHANNEL, str(guild_id))
    found = await get_settings(db, guild_id)
    assert found is not None
    return found


async def get_settings(db: Database, guild_id: int) -> DigestSettings | None:
    sql = f"SELECT {_SETTINGS_COLUMNS} FROM digest_settings WHERE guild_id = ?"
    row = await db.fetch_one(sql, (guild_id,))
    return _settings(row) if row else None


async def enabled_settings(db: Database) -> list[DigestSettings]:
    """Every server with its digest switched on, for rebuilding the jobs."""
    sql = f"SELECT {_SETTINGS_COLUMNS} FROM digest_settings WHERE enabled = 1 ORDER BY guild_id"
    return [_settings(row) for row in await db.fetch_all(sql)]


async def set_enabled(db: Database, guild_id: int, enabled: bool, now: datetime) -> bool:
    """Switch a schedule off (or on, active from `now`); False if none exists."""
    async with db.transaction() as conn:
        cur = await conn.execute(
            "UPDATE digest_settings SET enabled = ?, updated_at = ?,"
            " active_since = CASE WHEN ? = 1 THEN ? ELSE active_since END WHERE guild_id = ?",
            (int(enabled), now.isoformat(), int(enabled), now.isoformat(), guild_id),
        )
    await db.notify(SETTINGS_CHANNEL, str(guild_id))
    return cur.rowcount > 0


async def record_failure(db: Database, guild_id: int, message: str, now: datetime) -> None:
    async with db.transaction() as conn:
        await conn.execute(
            "UPDATE digest_settings SET failure = ?, failure_at = ? WHERE guild_id = ?",
            (message, now.isoformat(), guild_id),
        )


async def take_failure(db: Database, guild_id: int) -> tuple[str, datetime] | None:
    """The recorded failure, cleared in the same step (an admin is being told)."""
    async with db.transaction() as conn:
        await conn.lock(f"digest-failure:{guild_id}")
        row = await db.fetch_one(
            "SELECT failure, failure_at FROM digest_settings"
            " WHERE guild_id = ? AND failure IS NOT NULL",
            (guild_id,),
        )
        if row is None:
            return None
        await conn.execute(
            "UPDATE digest_settings SET failure = NULL, failure_at = NULL WHERE guild_id = ?",
            (guild_id,),
        )
    return str(row[0]), datetime.fromisoformat(row[1])


async def posted_ids(db: Database, channel_id: int) -> list[int]:
    """Papers already posted (or being posted) in a channel, retired ones included."""
    return [
        int(row[0])
        for row in await db.fetch_all(
            "SELECT p.id FROM digest_posted AS d JOIN papers AS p ON p.key = d.paper_key"
            " WHERE d.channel_id = ? ORDER BY p.id",
            (channel_id,),
        )
    ]


_CLAIM_SQL = (
    "INSERT INTO digest_posts (guild_id, channel_id, kind, local_date, nonce, header,"
    " paper_keys, message, state, claimed_at, deadline)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'claimed', ?, ?)"
    " ON CONFLICT DO NOTHING RETURNING id"
)


class AlreadyClaimed(Exception):
    """The (guild, local date) already has its scheduled post row."""


async def claim(
    db: Database,
    *,
    guild_id: int,
    channel_id: int,
    kind: PostKind,
    local_date: date,
    nonce: str,
    message: MessageData,
    paper_ids: Sequence[int],
    now: datetime,
    deadline: datetime,
) -> DigestPost:
    """Record a post before anything is sent, and mark its papers as seen.

    Raises `AlreadyClaimed` when a scheduled post for that local date exists,
    or a paper was taken by another post in the meantime; nothing is written
    then.
    """
    try:
        async with db.transaction() as conn:
            if kind == "scheduled":
                # A day whose post failed for good may be tried again (after
                # an admin fixed the channel): the failed row steps aside.
                await conn.execute(
                    "DELETE FROM digest_posts WHERE guild_id = ? AND local_date = ?"
                    " AND kind = 'scheduled' AND state IN ('failed', 'expired')",
                    (guild_id, local_date.isoformat()),
                )
            keys = await paper_keys_of(db, conn, paper_ids)
            # The one gate across processes: a second claim of the day (or
            # nonce) inserts nothing and returns no row.
            row = await conn.fetch_one(
                _CLAIM_SQL,
                (
                    guild_id,
                    channel_id,
                    kind,
                    local_date.isoformat(),
                    nonce,
                    message.content.split("\n", 1)[0],
                    json.dumps(keys, ensure_ascii=False),
                    encode_message(message),
                    now.isoformat(),
                    deadline.isoformat(),
                ),
            )
            if row is None:
                raise AlreadyClaimed(f"guild {guild_id} already has its post for {local_date}")
            post_id = int(row[0])
            await _mark_seen(conn, post_id, channel_id, keys, message.mention_user_ids)
    except ConstraintError as exc:
        raise AlreadyClaimed(str(exc)) from exc
    found = await get_post(db, post_id)
    assert found is not None
    return found


async def _mark_seen(
    tx: Transaction,
    post_id: int,
    channel_id: int,
    keys: Sequence[str],
    pinged: Sequence[int],
) -> None:
    """The channel has seen these papers, and the pinged readers with it
    (their personal digest never repeats them)."""
    await tx.executemany(
        "INSERT INTO digest_posted (channel_id, paper_key, post_id) VALUES (?, ?, ?)",
        [(channel_id, key, post_id) for key in keys],
    )
    await tx.executemany(
        "INSERT INTO digest_pinged (user_id, post_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
        [(user_id, post_id) for user_id in pinged],
    )


async def paper_keys_of(db: Database, tx: Transaction, paper_ids: Sequence[int]) -> list[str]:
    """The stable keys of these papers, in the order given."""
    ids_of = dialect_sql(
        db, sqlite="json_each(?)", postgresql="jsonb_array_elements_text(?::jsonb) AS value"
    )
    rows = await tx.fetch_all(
        f"SELECT id, key FROM papers WHERE id IN (SELECT CAST(value AS BIGINT) FROM {ids_of})",
        (json.dumps(list(paper_ids)),),
    )
    by_id = {int(pid): str(key) for pid, key in rows}
    return [by_id[pid] for pid in paper_ids if pid in by_id]


# The delivery states, over this module's tables (`storage.post_states`).
mark_sent = post_states.SERVER_POSTS.mark_sent
confirm = post_states.SERVER_POSTS.confirm
close_post = post_states.SERVER_POSTS.close_post
note_error = post_states.SERVER_POSTS.note_error


async def get_post(db: Database, post_id: int) -> DigestPost | None:
    sql = f"SELECT {_post_columns(db)} FROM digest_posts WHERE id = ?"
    row = await db.fetch_one(sql, (post_id,))
    return _post(row) if row else None


async def scheduled_post(db: Database, guild_id: int, local_date: date) -> DigestPost | None:
    sql = (
        f"SELECT {_post_columns(db)} FROM digest_posts"
        " WHERE guild_id = ? AND local_date = ? AND kind = 'scheduled'"
    )
    row = await db.fetch_one(sql, (guild_id, local_date.isoformat()))
    return _post(row) if row else None


async def open_posts(db: Database) -> list[DigestPost]:
    """Posts whose delivery is unresolved (a crash, or an unknown outcome)."""
    sql = f"SELECT {_post_columns(db)} FROM digest_posts"
    sql += " WHERE state IN ('claimed', 'sent') ORDER BY id"
    return [_post(row) for row in await db.fetch_all(sql)]


async def recent_posts(db: Database, guild_id: int, limit: int = 5) -> list[DigestPost]:
    sql = (
        f"SELECT {_post_columns(db)} FROM digest_posts WHERE guild_id = ? ORDER BY id DESC LIMIT ?"
    )
    return [_post(row) for row in await db.fetch_all(sql, (guild_id, limit))]


def _settings(row: Sequence[Any]) -> DigestSettings:
    (guild, channel, post_time, tz, count, enabled, since, by, updated, failure, failure_at) = row
    return DigestSettings(
        guild_id=int(guild),
        channel_id=int(channel),
        post_time=time.fromisoformat(post_time),
        timezone=str(tz),
        count=int(count),
        enabled=bool(enabled),
        active_since=datetime.fromisoformat(since),
        updated_by=int(by) if by is not None else None,
        updated_at=datetime.fromisoformat(updated),
        failure=failure,
        failure_at=datetime.fromisoformat(failure_at) if failure_at else None,
    )


def _post(row: Sequence[Any]) -> DigestPost:
    guild, channel, kind = post_states.own_columns(row)
    return post_states.decode_post(
        DigestPost, row, guild_id=int(guild), channel_id=int(channel), kind=kind
    )
