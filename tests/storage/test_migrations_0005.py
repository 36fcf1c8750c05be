"""Migration 0005: posting history keyed by the paper's stable key, papers retired
instead of deleted, on a database made with the old schema and holding history."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from paperbot.storage import digests, papers
from paperbot.storage.db import Database, available_migrations

OLD_VERSION = 4


def old_database(path: Path) -> None:
    """Schema 0001-0004 exactly as it landed, with three papers and history."""
    conn = sqlite3.connect(path)
    for _, _, sql in available_migrations()[:OLD_VERSION]:
        conn.executescript(sql)
    conn.execute(f"PRAGMA user_version = {OLD_VERSION}")
    stamp = "2026-11-30T09:00:00+00:00"
    for pid, title in ((1, "Alpha Paper"), (2, "Beta Paper"), (5, "Gamma Paper")):
        entries = [
            {
                "title": title,
                "venue": "ICML",
                "year": 2025,
                "area": "预训练",
                "summaries": ["摘要。"],
                "file": "icml-2025.txt",
                "line": pid,
            }
        ]
        conn.execute(
            "INSERT INTO papers VALUES (?, ?, ?, 'ICML', 2025, '预训练', ?, '[\"摘要。\"]', ?, ?)",
            (pid, title.casefold(), title, json.dumps(entries), stamp, stamp),
        )
    message = json.dumps({"content": "📚 h", "mention_user_ids": [], "embeds": []})
    for post_id, (day, ids) in enumerate((("2026-11-29", [1, 5]), ("2026-11-30", [2])), 1):
        conn.execute(
            "INSERT INTO digest_posts (id, guild_id, channel_id, kind, local_date, nonce, header,"
            " paper_ids, message, state, claimed_at, deadline, attempts, message_id)"
            " VALUES (?, 7, 70, 'scheduled', ?, ?, '📚 h', ?, ?, 'confirmed', ?, ?, 1, ?)",
            (post_id, day, f"n{post_id}", json.dumps(ids), message, stamp, stamp, 900 + post_id),
        )
        conn.executemany(
            "INSERT INTO digest_posted (channel_id, paper_id, post_id) VALUES (70, ?, ?)",
            [(pid, post_id) for pid in ids],
        )
    conn.commit()
    conn.close()


async def test_old_history_survives_the_migration(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old_database(path)
    db = await Database.open(path)
    try:
        async with db.conn.execute("PRAGMA user_version") as cur:
            assert await cur.fetchone() == (len(available_migrations()),)
        assert await digests.posted_ids(db, 70) == [1, 2, 5]
        posts = await digests.recent_posts(db, 7)
        assert [(p.local_date.isoformat(), p.paper_ids, p.message_id) for p in posts] == [
            ("2026-11-30", (2,), 902),
            ("2026-11-29", (1, 5), 901),
        ]
        async with db.conn.execute("SELECT channel_id, paper_key FROM digest_posted") as cur:
            assert sorted(await cur.fetchall()) == [
                (70, "alpha paper"),
                (70, "beta paper"),
                (70, "gamma paper"),
            ]
        async with db.conn.execute("PRAGMA foreign_key_check") as cur:
            assert await cur.fetchall() == []
        assert [p.id for p in await papers.list_papers(db)] == [1, 2, 5]
    finally:
        await db.close()


async def test_history_has_no_cascade_from_papers(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old_database(path)
    db = await Database.open(path)
    try:
        # Even a hand-deleted paper row leaves the channel's history in place.
        async with db.transaction() as conn:
            await conn.execute("DELETE FROM papers WHERE id = 5")
        async with db.conn.execute("SELECT count(*) FROM digest_posted") as cur:
            assert await cur.fetchone() == (3,)
    finally:
        await db.close()
