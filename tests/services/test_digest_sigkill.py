"""A real SIGKILL at each step of "claim, send, confirm", then a restart:
exactly one post, whatever moment the process died.

The dying process is a child Python running the real service on the SQLite
file; its "Discord" is a `FakeDiscord` journaled to a JSON file (fsynced
before the kill), so the restarted parent sees what went out.
"""

from __future__ import annotations

import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from paperbot.config import BUNDLED_CORPUS, Settings
from paperbot.core.schedule import digest_nonce
from paperbot.services.corpus import load_corpus
from paperbot.services.digest import DigestService
from paperbot.storage import digests as store
from paperbot.storage.db import Database
from tests.support.digest import FakeDiscord
from tests.support.process import run_until_killed

GUILD, CHANNEL = 7, 70
SLOT = datetime(2026, 11, 30, 1, 0, tzinfo=UTC)  # 09:00 in Shanghai

CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from datetime import datetime
    from pathlib import Path
    from paperbot.config import Settings
    from paperbot.services.digest import DigestService
    from paperbot.storage import digests as store
    from paperbot.storage.db import Database
    from tests.support.digest import FakeDiscord
    from tests.support.process import sigkill_in_transaction, sigkill_self

    db_path, journal, kill_at = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    now = datetime.fromisoformat(sys.argv[4])

    async def main():
        db = await Database.open(db_path)
        if kill_at == "after-claim":
            store.mark_sent = sigkill_self
        if kill_at == "in-claim":
            store.claim = lambda *_args, **_kwargs: sigkill_in_transaction(db,
                "INSERT INTO digest_posts (guild_id, channel_id, kind, local_date, nonce,"
                " header, paper_keys, message, state, claimed_at, deadline) VALUES (7, 70,"
                " 'scheduled', '2026-11-30', 'x', 'h', '[]', '{}', 'claimed', 'now', 'later')")
        discord = FakeDiscord(now=now, journal=journal, sigkill_at=kill_at)
        await DigestService(db, Settings()).run_scheduled(7, discord, now)

    asyncio.run(main())
    """
)


async def prepare(path: Path) -> None:
    db = await Database.open(path)
    try:
        await load_corpus(db, [BUNDLED_CORPUS], default_area="预训练", now=SLOT)
        await DigestService(db, Settings()).setup(
            guild_id=GUILD,
            channel_id=CHANNEL,
            time_text="09:00",
            timezone_text="Asia/Shanghai",
            count=3,
            user_id=1,
            now=SLOT - timedelta(days=1),
        )
    finally:
        await db.close()


@pytest.mark.parametrize("kill_at", ["in-claim", "after-claim", "before-request", "after-send"])
@pytest.mark.parametrize("back_after", [timedelta(seconds=50), timedelta(minutes=40)])
async def test_sigkill_at_any_step_still_posts_exactly_once(
    tmp_path: Path, kill_at: str, back_after: timedelta
) -> None:
    db_path, journal = tmp_path / "paperbot.sqlite3", tmp_path / "discord.json"
    await prepare(db_path)
    run_until_killed(CHILD, db_path, journal, kill_at, SLOT.isoformat())

    # Restart: resolve what was left open, then run the (re-fired) job.
    now = SLOT + back_after
    discord = FakeDiscord(now=now, journal=journal)
    db = await Database.open(db_path)
    try:
        service = DigestService(db, Settings())
        await service.recover(discord, now)
        await service.run_scheduled(GUILD, discord, now)
        await service.run_scheduled(GUILD, discord, now + timedelta(minutes=1))
        post = await store.scheduled_post(db, GUILD, SLOT.date())
    finally:
        await db.close()

    reloaded = FakeDiscord(now=now, journal=journal)
    assert len(reloaded.messages) == 1, f"{len(reloaded.messages)} posts after {kill_at}"
    [message] = reloaded.messages
    assert message.nonce == digest_nonce(GUILD, SLOT.date())
    assert post is not None
    assert post.state == "confirmed"
    assert post.message_id == message.id
