"""storage.personal on a real SQLite file: what a reader already got, and
the claim that makes one DM a day."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from paperbot.core.render import MessageData
from paperbot.storage import digests, papers, personal
from paperbot.storage.db import Database
from paperbot.storage.subscriptions import add

READER = 77
NOW = datetime(2026, 11, 30, 1, 0, tzinfo=UTC)
DAY = date(2026, 11, 30)


async def claim_dm(db: Database, ids: list[int], day: date = DAY) -> int:
    post = await personal.claim(
        db,
        user_id=READER,
        local_date=day,
        nonce=f"n{day.isoformat()}",
        message=MessageData(content="📬 header\nbody"),
        paper_ids=ids,
        now=NOW,
        deadline=NOW + timedelta(days=1),
    )
    assert post.header == "📬 header"
    return post.id


async def channel_post(db: Database, guild: int, ids: list[int], mentions: tuple[int, ...]) -> None:
    await digests.claim(
        db,
        guild_id=guild,
        channel_id=guild * 10,
        kind="manual",
        local_date=DAY,
        nonce=f"c{guild}",
        message=MessageData(content="📚 x", mention_user_ids=mentions),
        paper_ids=ids,
        now=NOW,
        deadline=NOW + timedelta(days=1),
    )


async def test_received_is_dms_and_digests_of_followed_or_pinging_servers(
    loaded_db: Database,
) -> None:
    ids = [p.id for p in await papers.list_papers(loaded_db)][:8]
    await add(loaded_db, 1, READER, "topic", "scaling-laws", "Scaling laws", NOW, 25)
    await claim_dm(loaded_db, ids[0:2])
    await channel_post(loaded_db, 1, ids[2:4], ())  # a server they follow topics in
    await channel_post(loaded_db, 2, ids[4:6], (READER,))  # a server that pinged them
    await channel_post(loaded_db, 3, ids[6:8], (READER + 1,))  # someone else's server
    assert await personal.received_ids(loaded_db, READER) == sorted(ids[0:6])


async def test_one_claim_a_day_and_a_failed_dm_frees_its_papers(loaded_db: Database) -> None:
    ids = [p.id for p in await papers.list_papers(loaded_db)][:4]
    post_id = await claim_dm(loaded_db, ids[:2])
    with pytest.raises(personal.AlreadyClaimed):
        await claim_dm(loaded_db, ids[2:])
    with pytest.raises(personal.AlreadyClaimed):  # a paper already received
        await claim_dm(loaded_db, ids[1:3], DAY + timedelta(days=1))
    await personal.close_post(loaded_db, post_id, "failed", "50007")
    assert await personal.received_ids(loaded_db, READER) == []
    assert await personal.open_posts(loaded_db) == []


async def test_switch_off_keeps_a_notice_until_told(db: Database) -> None:
    await personal.save_settings(
        db, user_id=READER, post_time=NOW.time(), timezone="UTC", count=5, guild_id=1, now=NOW
    )
    assert await personal.switch_off(db, READER, NOW, "closed")
    assert not await personal.switch_off(db, READER, NOW, "again")  # already off
    assert await personal.peek_notice(db, READER) == "closed"
    await personal.clear_notice(db, READER, "other")
    assert await personal.peek_notice(db, READER) == "closed"
    await personal.clear_notice(db, READER, "closed")
    assert await personal.peek_notice(db, READER) is None
    assert await personal.enabled_settings(db) == []


async def test_forget_user_removes_only_that_reader(loaded_db: Database) -> None:
    ids = [p.id for p in await papers.list_papers(loaded_db)][:2]
    await personal.save_settings(
        loaded_db,
        user_id=READER,
        post_time=NOW.time(),
        timezone="UTC",
        count=5,
        guild_id=1,
        now=NOW,
    )
    await personal.save_settings(
        loaded_db,
        user_id=READER + 1,
        post_time=NOW.time(),
        timezone="UTC",
        count=5,
        guild_id=1,
        now=NOW,
    )
    await claim_dm(loaded_db, ids)
    assert await personal.forget_user(loaded_db, READER) == 1 + 2 + 1
    assert await personal.get_settings(loaded_db, READER) is None
    assert await personal.received_ids(loaded_db, READER) == []
    assert await personal.day_post(loaded_db, READER, DAY) is None
    assert await personal.get_settings(loaded_db, READER + 1) is not None
