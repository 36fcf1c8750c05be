"""A real SIGKILL at each step of "claim, send, confirm", then a restart:
exactly one post, whatever moment the process died.

The dying process is a child Python running the real service on the SQLite
file; its "Discord" is a `FakeDiscord` journaled to a JSON file (fsynced
before the kill), so the restarted parent sees what went out.
"""

from __future__ import annotations

import subprocess
import sys
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

REPO = Path(__file__).parents[2]
GUILD, CHANNEL = 7, 70
SLOT = datetime(2026, 11, 30, 1, 0, tzinfo=UTC)  # 09:00 in Shanghai

CHILD = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from datetime import datetime
    from pathlib import Path
    from paperbot.config import Settings
    from paperbot.services import digest as service_module
    from paperbot.storage.db import Database
    from tests.support.digest import FakeDiscord

    db_path, journal, kill_at, now = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    now = datetime.fromisoformat(now)

    def die(*_args, **_kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    class Dying(FakeDiscord):
        async def send(self, channel_id, message, nonce):
            if kill_at == "before-request":
                die()
            message_id = await super().send(channel_id, message, nonce)
            if kill_at == "after-send":
                die()  # the message exists, the confirm never happens
            return message_id

    async def main():
        db = await Database.open(db_path)
        if kill_at == "after-claim":
            service_module.store.mark_sent = die
        if kill_at == "in-claim":
            original = service_module.store.claim
            async def claim_then_die(*args, **kwargs):
                async with db.transaction() as conn:
                    await conn.execute("INSERT INTO digest_posts (guild_id, channel_id, kind,"
                        " local_date, nonce, header, paper_keys, message, state, claimed_at,"
                        " deadline) VALUES (7, 70, 'scheduled', '2026-11-30', 'x', 'h', '[]',"
                        " '{}', 'claimed', 'now', 'later')")
                    die()  # inside the open transaction
            service_module.store.claim = claim_then_die
        service = service_module.DigestService(db, Settings())
        await service.run_scheduled(7, Dying(now=now, journal=journal), now)
        await db.close()

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


def run_child(db_path: Path, journal: Path, kill_at: str, now: datetime) -> int:
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(db_path), str(journal), kill_at, now.isoformat()],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return result.returncode


@pytest.mark.parametrize("kill_at", ["in-claim", "after-claim", "before-request", "after-send"])
@pytest.mark.parametrize("back_after", [timedelta(seconds=50), timedelta(minutes=40)])
async def test_sigkill_at_any_step_still_posts_exactly_once(
    tmp_path: Path, kill_at: str, back_after: timedelta
) -> None:
    db_path, journal = tmp_path / "paperbot.sqlite3", tmp_path / "discord.json"
    await prepare(db_path)
    assert run_child(db_path, journal, kill_at, SLOT) == -9  # really SIGKILLed

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
