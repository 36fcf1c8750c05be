"""The digest store on a real SQLite file: settings, claims, seen papers."""

from __future__ import annotations

from datetime import time, timedelta

import pytest

from paperbot.storage import digests as store
from paperbot.storage import papers
from paperbot.storage.db import Database
from tests.support.app import FIXED_NOW
from tests.support.digest import DAY, MESSAGE, ensure_digest_schema


@pytest.fixture
async def digest_db(loaded_db: Database) -> Database:
    await ensure_digest_schema(loaded_db)
    return loaded_db


async def claim(
    db: Database, ids: list[int], kind: store.PostKind = "scheduled", nonce: str = "n1"
) -> store.DigestPost:
    return await store.claim(
        db,
        guild_id=1,
        channel_id=2,
        kind=kind,
        local_date=DAY,
        nonce=nonce,
        message=MESSAGE,
        paper_ids=ids,
        now=FIXED_NOW,
        deadline=FIXED_NOW + timedelta(hours=15),
    )


async def test_settings_round_trip_and_failure_told_once(digest_db: Database) -> None:
    saved = await store.save_settings(
        digest_db,
        guild_id=1,
        channel_id=2,
        post_time=time(9, 5),
        timezone="Asia/Shanghai",
        count=3,
        updated_by=7,
        now=FIXED_NOW,
    )
    assert (saved.post_time, saved.timezone, saved.count, saved.enabled) == (
        time(9, 5),
        "Asia/Shanghai",
        3,
        True,
    )
    await store.record_failure(digest_db, 1, "channel gone", FIXED_NOW)
    assert await store.take_failure(digest_db, 1) == ("channel gone", FIXED_NOW)
    assert await store.take_failure(digest_db, 1) is None
    assert await store.set_enabled(digest_db, 1, False, FIXED_NOW)
    assert await store.enabled_settings(digest_db) == []
    assert not await store.set_enabled(digest_db, 99, False, FIXED_NOW)


async def test_a_day_can_be_claimed_once(digest_db: Database) -> None:
    ids = [p.id for p in await papers.list_papers(digest_db)][:3]
    post = await claim(digest_db, ids)
    assert post.state == "claimed"
    assert post.paper_ids == tuple(ids)
    assert post.message == MESSAGE
    assert post.header == "📚 header"
    with pytest.raises(store.AlreadyClaimed):
        await claim(digest_db, [], nonce="n2")
    # Manual posts are not keyed by the day.
    await claim(digest_db, [], kind="manual", nonce="m1")
    assert await store.posted_ids(digest_db, 2) == sorted(ids)


async def test_a_paper_in_flight_cannot_be_claimed_twice(digest_db: Database) -> None:
    ids = [p.id for p in await papers.list_papers(digest_db)][:2]
    await claim(digest_db, ids, kind="manual", nonce="m1")
    with pytest.raises(store.AlreadyClaimed):
        await claim(digest_db, ids[1:], kind="manual", nonce="m2")
    assert len(await store.recent_posts(digest_db, 1)) == 1  # nothing half-written


async def test_states_and_closing(digest_db: Database) -> None:
    ids = [p.id for p in await papers.list_papers(digest_db)][:2]
    post = await claim(digest_db, ids)
    await store.mark_sent(digest_db, post.id, FIXED_NOW)
    sent = await store.get_post(digest_db, post.id)
    assert sent is not None
    assert sent.state == "sent"
    assert sent.attempts == 1
    assert [p.id for p in await store.open_posts(digest_db)] == [post.id]
    await store.close_post(digest_db, post.id, "failed", "gone")
    assert await store.open_posts(digest_db) == []
    assert await store.posted_ids(digest_db, 2) == []
    # A failed day steps aside for a new claim of that day.
    again = await claim(digest_db, ids, nonce="n2")
    await store.confirm(digest_db, again.id, 555)
    done = await store.scheduled_post(digest_db, 1, DAY)
    assert done is not None
    assert done.state == "confirmed"
    assert done.message_id == 555


async def test_closing_an_unknown_outcome_keeps_papers_seen(digest_db: Database) -> None:
    ids = [p.id for p in await papers.list_papers(digest_db)][:2]
    post = await claim(digest_db, ids)
    await store.close_post(digest_db, post.id, "expired", "unknown", free_papers=False)
    assert await store.posted_ids(digest_db, 2) == sorted(ids)
