"""Every SQL statement about topic subscriptions.

A subscription is (guild, user, kind, topic): `kind` is 'topic' for a
vocabulary id or 'keyword' for a free keyword's normalised key. Nothing here
crosses servers unless the caller asks for every server (the operator CLI).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from paperbot.core.models import Subscription, TopicCount, TopicSubscribers
from paperbot.core.models import SubscriptionKind as Kind
from paperbot.storage.backend import Database, Transaction

AddOutcome = Literal["added", "exists", "limit"]

_COLUMNS = "guild_id, user_id, kind, topic, label, created_at"
_DELETE = "DELETE FROM subscriptions WHERE guild_id = ? AND user_id = ? AND kind = ? AND topic = ?"


async def add(
    db: Database,
    guild_id: int,
    user_id: int,
    kind: Kind,
    topic: str,
    label: str,
    now: datetime,
    limit: int,
) -> AddOutcome:
    """Subscribe unless already subscribed or at `limit` topics in this server.

    The check and the insert share one write transaction, so two concurrent
    subscribes cannot both slip under the limit.
    """
    async with db.transaction() as conn:
        await conn.lock(f"subscriptions:{guild_id}:{user_id}")
        return await _add_checked(conn, (guild_id, user_id, kind, topic, label), now, limit)


async def replace(
    db: Database,
    guild_id: int,
    user_id: int,
    old: tuple[Kind, str],
    new: tuple[Kind, str, str],
    now: datetime,
    limit: int,
) -> AddOutcome:
    """Follow `new` (kind, topic, label) in place of `old` (kind, topic) in one
    write transaction ("added", or "exists" when `new` was followed already).
    Removing `old` frees the slot `new` takes, so "limit" means `old` was
    not followed any more, and then nothing changed."""
    async with db.transaction() as conn:
        await conn.lock(f"subscriptions:{guild_id}:{user_id}")
        await conn.execute(_DELETE, (guild_id, user_id, *old))
        return await _add_checked(conn, (guild_id, user_id, *new), now, limit)


async def _add_checked(
    conn: Transaction, row: tuple[int, int, Kind, str, str], now: datetime, limit: int
) -> AddOutcome:
    """The insert of `add`, inside the caller's locked transaction."""
    guild_id, user_id, kind, topic, _label = row
    exists = (
        "SELECT 1 FROM subscriptions WHERE guild_id = ? AND user_id = ? AND kind = ? AND topic = ?"
    )
    count = "SELECT count(*) FROM subscriptions WHERE guild_id = ? AND user_id = ?"
    if await conn.fetch_one(exists, (guild_id, user_id, kind, topic)) is not None:
        return "exists"
    found = await conn.fetch_one(count, (guild_id, user_id))
    if found is not None and int(found[0]) >= limit:
        return "limit"
    await conn.execute(
        f"INSERT INTO subscriptions ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
        (*row, now.isoformat()),
    )
    return "added"


async def remove(db: Database, guild_id: int, user_id: int, kind: Kind, topic: str) -> bool:
    """Unsubscribe; False when there was nothing to remove."""
    async with db.transaction() as conn:
        cur = await conn.execute(_DELETE, (guild_id, user_id, kind, topic))
    return cur.rowcount > 0


async def user_subscriptions(db: Database, guild_id: int, user_id: int) -> list[Subscription]:
    """One user's subscriptions in one server, oldest first."""
    sql = f"SELECT {_COLUMNS} FROM subscriptions WHERE guild_id = ? AND user_id = ? ORDER BY id"
    return [_subscription(row) for row in await db.fetch_all(sql, (guild_id, user_id))]


async def count_user(db: Database, guild_id: int, user_id: int) -> int:
    sql = "SELECT count(*) FROM subscriptions WHERE guild_id = ? AND user_id = ?"
    row = await db.fetch_one(sql, (guild_id, user_id))
    return int(row[0]) if row else 0


async def guild_topics(db: Database, guild_id: int) -> list[TopicSubscribers]:
    """Every topic followed in a server with its subscribers (for the digest).

    Topics in order of first subscription; subscribers ascending. A keyword's
    label is the earliest subscriber's spelling.
    """
    sql = "SELECT kind, topic, label, user_id FROM subscriptions WHERE guild_id = ? ORDER BY id"
    groups: dict[tuple[str, str], tuple[str, list[int]]] = {}
    for kind, topic, label, user_id in await db.fetch_all(sql, (guild_id,)):
        groups.setdefault((kind, topic), (label, []))[1].append(int(user_id))
    return [
        TopicSubscribers(_kind(kind), topic, label, tuple(sorted(users)))
        for (kind, topic), (label, users) in groups.items()
    ]


async def subscribed_guilds(db: Database) -> list[int]:
    """Servers with at least one subscription."""
    return [
        int(row[0])
        for row in await db.fetch_all("SELECT DISTINCT guild_id FROM subscriptions ORDER BY 1")
    ]


async def topic_counts(db: Database, guild_id: int | None = None) -> list[TopicCount]:
    """Subscribers per topic, in one server or across all, most followed first."""
    sql = (
        "SELECT kind, topic, min(label), count(*) FROM subscriptions"
        " WHERE (CAST(?1 AS BIGINT) IS NULL OR guild_id = ?1) GROUP BY kind, topic"
        " ORDER BY count(*) DESC, kind, topic"
    )
    return [
        TopicCount(_kind(k), t, lbl, int(n))
        for k, t, lbl, n in await db.fetch_all(sql, (guild_id,))
    ]


async def list_subscriptions(
    db: Database, guild_id: int | None = None, user_id: int | None = None
) -> list[Subscription]:
    """Stored subscriptions for operators, optionally one server and/or one user."""
    sql = (
        f"SELECT {_COLUMNS} FROM subscriptions"
        " WHERE (CAST(?1 AS BIGINT) IS NULL OR guild_id = ?1)"
        " AND (CAST(?2 AS BIGINT) IS NULL OR user_id = ?2)"
        " ORDER BY guild_id, user_id, id"
    )
    return [_subscription(row) for row in await db.fetch_all(sql, (guild_id, user_id))]


def _subscription(row: Sequence[Any]) -> Subscription:
    guild_id, user_id, kind, topic, label, created_at = row
    return Subscription(
        int(guild_id), int(user_id), _kind(kind), topic, label, datetime.fromisoformat(created_at)
    )


def _kind(value: str) -> Kind:
    # The table's CHECK constraint allows nothing else.
    return "keyword" if value == "keyword" else "topic"
