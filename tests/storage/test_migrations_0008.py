"""Migration 0008 on a database holding server digests from before it: who
each post pinged is filled in, so the personal digest never repeats them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from paperbot.storage import personal
from paperbot.storage.db import Database, available_migrations

OLD_VERSION = 6  # saved papers; 0007 (another feature) does not touch the digest
READER, OTHER = 10**17 + 1, 10**17 + 2


def old_database(path: Path) -> None:
    """Schema up to 0006 with two papers and a post that pinged READER."""
    conn = sqlite3.connect(path)
    for _, _, sql in available_migrations()[:OLD_VERSION]:
        conn.executescript(sql)
    conn.execute(f"PRAGMA user_version = {OLD_VERSION}")
    stamp = "2026-11-30T09:00:00+00:00"
    for pid, title in ((1, "Alpha Paper"), (2, "Beta Paper")):
        conn.execute(
            "INSERT INTO papers (id, key, title, venue, year, area, entries, summaries,"
            " added_at, updated_at) VALUES (?, ?, ?, 'ICML', 2025, '预训练', '[]', '[]', ?, ?)",
            (pid, title.casefold(), title, stamp, stamp),
        )
    message = json.dumps({"content": "📚 h", "mention_user_ids": [READER], "embeds": []})
    conn.execute(
        "INSERT INTO digest_posts (id, guild_id, channel_id, kind, local_date, nonce, header,"
        " paper_keys, message, state, claimed_at, deadline, attempts, message_id)"
        " VALUES (1, 7, 70, 'scheduled', '2026-11-30', 'n1', '📚 h', '[\"alpha paper\"]', ?,"
        " 'confirmed', ?, ?, 1, 901)",
        (message, stamp, stamp),
    )
    conn.execute(
        "INSERT INTO digest_posted (channel_id, paper_key, post_id) VALUES (70, 'alpha paper', 1)"
    )
    conn.commit()
    conn.close()


async def test_pings_before_the_migration_count_as_received(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old_database(path)
    db = await Database.open(path)
    try:
        assert await personal.received_ids(db, READER) == [1]
        assert await personal.received_ids(db, OTHER) == []
        assert await personal.enabled_settings(db) == []
    finally:
        await db.close()
