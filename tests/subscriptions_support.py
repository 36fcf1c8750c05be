"""Helpers for the topic/subscription tests."""

from __future__ import annotations

from importlib import resources

from paperbot.storage.db import Database, _statements


async def ensure_subscriptions_table(db: Database) -> None:
    """Create the subscriptions table if migrations have not.

    Migration 0003 ships as `0003_subscriptions.sql.pending` until migration
    0002 (search) lands, because migrations must be numbered without gaps.
    Once it is active this does nothing.
    """
    async with db.conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'subscriptions'"
    ) as cur:
        if await cur.fetchone() is not None:
            return
    folder = resources.files("paperbot.storage.migrations")
    sql = folder.joinpath("0003_subscriptions.sql.pending").read_text(encoding="utf-8")
    async with db.transaction() as conn:
        for statement in _statements(sql):
            await conn.execute(statement)
