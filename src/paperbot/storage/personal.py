"""Every SQL statement about the personal daily digest by DM.

The same three writes as the server digest (`storage.digests`), each its
own transaction: `claim` (the unique (user, local date) row with the papers
marked as received), `mark_sent` once the DM channel is known and just
before the request leaves, and `confirm` with the message id.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date, datetime, time
from typing import Any

from paperbot.core.personal import PersonalPost, PersonalSettings
from paperbot.core.render import MessageData
from paperbot.storage import post_states
from paperbot.storage.backend import Database
from paperbot.storage.db import ConstraintError
from paperbot.storage.digests import paper_keys_of
from paperbot.storage.messages import encode_message

_SETTINGS_COLUMNS = (
    "user_id, post_time, timezone, count, enabled, active_since, set_in_guild, updated_at,"
    " notice, notice_at"
)


def _post_columns(db: Database) -> str:
    return post_states.PERSONAL_POSTS.columns(db) + ", user_id, channel_id"


class AlreadyClaimed(Exception):
    """The reader's DM for that local date already has its row."""


async def save_settings(
    db: Database,
    *,
    user_id: int,
    post_time: time,
    timezone: str,
    count: int,
    guild_id: int | None,
    now: datetime,
) -> PersonalSettings:
    """Create or replace a reader's schedule, enabled, active from `now`
    (a notice about closed DMs is dropped: the reader just turned it on)."""
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO personal_digest_settings (user_id, post_time, timezone, count, enabled,"
            " active_since, set_in_guild, updated_at, notice, notice_at)"
            " VALUES (?, ?, ?, ?, 1, ?, ?, ?, NULL, NULL)"
            " ON CONFLICT (user_id) DO UPDATE SET post_time = excluded.post_time,"
            " timezone = excluded.timezone, count = excluded.count, enabled = 1,"
            " active_since = excluded.active_since, set_in_guild = excluded.set_in_guild,"
            " updated_at = excluded.updated_at, notice = NULL, notice_at = NULL",
            (
                user_id,
                f"{post_time:%H:%M}",
                timezone,
                count,
                now.isoformat(),
                guild_id,
                now.isoformat(),
            ),
        )
    found = await get_settings(db, user_id)
    assert found is not None
    return found


async def get_settings(db: Database, user_id: int) -> PersonalSettings | None:
    sql = f"SELECT {_SETTINGS_COLUMNS} FROM personal_digest_settings WHERE user_id = ?"
    row = await db.fetch_one(sql, (user_id,))
    return _settings(row) if row else None


async def enabled_settings(db: Database) -> list[PersonalSettings]:
    sql = (
        f"SELECT {_SETTINGS_COLUMNS} FROM personal_digest_settings"
        " WHERE enabled = 1 ORDER BY user_id"
    )
    return [_settings(row) for row in await db.fetch_all(sql)]


async def switch_off(db: Database, user_id: int, now: datetime, notice: str | None = None) -> bool:
    """Switch a reader's digest off (with a notice to tell them, when the bot
    did it); False if they have none switched on."""
    # The statement is built rather than using `CASE WHEN ? IS NULL`: PostgreSQL
    # cannot infer a type for a parameter that is only tested for NULL.
    sql = "UPDATE personal_digest_settings SET enabled = 0, updated_at = ?"
    params: tuple[Any, ...] = (now.isoformat(), user_id)
    if notice is not None:
        sql += ", notice = ?, notice_at = ?"
        params = (now.isoformat(), notice, now.isoformat(), user_id)
    async with db.transaction() as conn:
        cur = await conn.execute(sql + " WHERE user_id = ? AND enabled = 1", params)
        return cur.rowcount > 0


async def peek_notice(db: Database, user_id: int) -> str | None:
    row = await db.fetch_one(
        "SELECT notice FROM personal_digest_settings WHERE user_id = ? AND notice IS NOT NULL",
        (user_id,),
    )
    return str(row[0]) if row else None


async def clear_notice(db: Database, user_id: int, notice: str) -> None:
    """Forget a notice once the reader was told (only the one they saw)."""
    async with db.transaction() as conn:
        await conn.execute(
            "UPDATE personal_digest_settings SET notice = NULL, notice_at = NULL"
            " WHERE user_id = ? AND notice = ?",
            (user_id, notice),
        )


async def received_ids(db: Database, user_id: int) -> list[int]:
    """Papers this reader already got: by DM, or in a server digest of a
    server where they follow topics or that pinged them (retired papers included)."""
    sql = (
        "SELECT p.id FROM personal_received AS r JOIN papers AS p ON p.key = r.paper_key"
        " WHERE r.user_id = ?1"
        " UNION SELECT p.id FROM digest_posted AS d"
        " JOIN digest_posts AS dp ON dp.id = d.post_id JOIN papers AS p ON p.key = d.paper_key"
        " WHERE dp.guild_id IN (SELECT guild_id FROM subscriptions WHERE user_id = ?1)"
        " UNION SELECT p.id FROM digest_pinged AS g"
        " JOIN digest_posted AS d ON d.post_id = g.post_id"
        " JOIN papers AS p ON p.key = d.paper_key WHERE g.user_id = ?1"
        " ORDER BY 1"
    )
    return [int(row[0]) for row in await db.fetch_all(sql, (user_id,))]


async def claim(
    db: Database,
    *,
    user_id: int,
    local_date: date,
    nonce: str,
    message: MessageData,
    paper_ids: Sequence[int],
    now: datetime,
    deadline: datetime,
) -> PersonalPost:
    """Record a DM before anything is sent, and mark its papers received.

    Raises `AlreadyClaimed` when that day has its row, or a paper was taken
    by another DM to this reader meanwhile; nothing is written then.
    """
    try:
        async with db.transaction() as conn:
            keys = await paper_keys_of(db, conn, paper_ids)
            row = await conn.fetch_one(
                "INSERT INTO personal_posts (user_id, local_date, nonce, header, paper_keys,"
                " message, state, claimed_at, deadline) VALUES (?, ?, ?, ?, ?, ?, 'claimed', ?, ?)"
                " ON CONFLICT DO NOTHING RETURNING id",
                (
                    user_id,
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
                raise AlreadyClaimed(f"user {user_id} already has their DM for {local_date}")
            post_id = int(row[0])
            await conn.executemany(
                "INSERT INTO personal_received (user_id, paper_key, post_id) VALUES (?, ?, ?)",
                [(user_id, key, post_id) for key in keys],
            )
    except ConstraintError as exc:
        raise AlreadyClaimed(str(exc)) from exc
    found = await get_post(db, post_id)
    assert found is not None
    return found


async def set_channel(db: Database, post_id: int, channel_id: int) -> None:
    """The DM channel Discord opened for this post (kept for history lookups)."""
    async with db.transaction() as conn:
        await conn.execute(
            "UPDATE personal_posts SET channel_id = ? WHERE id = ?", (channel_id, post_id)
        )


# The delivery states, over this module's tables (`storage.post_states`).
mark_sent = post_states.PERSONAL_POSTS.mark_sent
confirm = post_states.PERSONAL_POSTS.confirm
close_post = post_states.PERSONAL_POSTS.close_post
note_error = post_states.PERSONAL_POSTS.note_error


async def get_post(db: Database, post_id: int) -> PersonalPost | None:
    row = await db.fetch_one(
        f"SELECT {_post_columns(db)} FROM personal_posts WHERE id = ?", (post_id,)
    )
    return _post(row) if row else None


async def day_post(db: Database, user_id: int, local_date: date) -> PersonalPost | None:
    sql = f"SELECT {_post_columns(db)} FROM personal_posts WHERE user_id = ? AND local_date = ?"
    row = await db.fetch_one(sql, (user_id, local_date.isoformat()))
    return _post(row) if row else None


async def open_posts(db: Database) -> list[PersonalPost]:
    sql = (
        f"SELECT {_post_columns(db)} FROM personal_posts"
        " WHERE state IN ('claimed', 'sent') ORDER BY id"
    )
    return [_post(row) for row in await db.fetch_all(sql)]


def _settings(row: Sequence[Any]) -> PersonalSettings:
    user, post_time, tz, count, enabled, since, guild, updated, notice, notice_at = row
    return PersonalSettings(
        user_id=int(user),
        post_time=time.fromisoformat(post_time),
        timezone=str(tz),
        count=int(count),
        enabled=bool(enabled),
        active_since=datetime.fromisoformat(since),
        set_in_guild=int(guild) if guild is not None else None,
        updated_at=datetime.fromisoformat(updated),
        notice=notice,
        notice_at=datetime.fromisoformat(notice_at) if notice_at else None,
    )


def _post(row: Sequence[Any]) -> PersonalPost:
    user, channel = post_states.own_columns(row)
    return post_states.decode_post(
        PersonalPost,
        row,
        user_id=int(user),
        channel_id=int(channel) if channel is not None else None,
    )


async def forget_user(db: Database, user_id: int) -> int:
    """Delete everything the personal digest holds about a reader (setting,
    DMs, what they received); the number of rows removed."""
    async with db.transaction() as conn:
        removed = 0
        for sql in (
            "DELETE FROM personal_received WHERE user_id = ?",
            "DELETE FROM personal_posts WHERE user_id = ?",
            "DELETE FROM personal_digest_settings WHERE user_id = ?",
        ):
            cur = await conn.execute(sql, (user_id,))
            removed += cur.rowcount
    return removed
