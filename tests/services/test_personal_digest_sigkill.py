"""A real SIGKILL at each step of the personal DM's "claim, open the DM,
send, confirm", then a restart: exactly one DM, whatever moment the process
died, and none of its papers ever sent to the reader again.

As in `tests/test_digest_sigkill.py`, the dying process is a child Python
running the real services on the SQLite file; its Discord is journaled to
a JSON file (fsynced before the kill), so the restarted parent sees what
went out.
"""

from __future__ import annotations

import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from paperbot.config import BUNDLED_CORPUS
from paperbot.core.personal import personal_nonce
from paperbot.services.app import App
from paperbot.storage import personal as store
from tests.support.app import settings_for
from tests.support.personal import FakeDms, dm_channel
from tests.support.process import run_until_killed

READER = 10**17 + 7
SLOT = datetime(2026, 11, 30, 1, 0, tzinfo=UTC)  # 09:00 in Shanghai

CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from datetime import datetime
    from pathlib import Path
    from paperbot.services.app import App
    from paperbot.storage import personal as store
    from tests.support.app import settings_for
    from tests.support.personal import FakeDms
    from tests.support.process import sigkill_in_transaction, sigkill_self

    db_path, journal, kill_at = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    now = datetime.fromisoformat(sys.argv[4])
    READER = 10**17 + 7

    async def main():
        app = await App.open(settings_for(db_path))
        if kill_at == "after-claim":
            store.set_channel = sigkill_self
        if kill_at == "after-open":
            store.mark_sent = sigkill_self
        if kill_at == "in-claim":
            store.claim = lambda *_args, **_kwargs: sigkill_in_transaction(app._db,
                "INSERT INTO personal_posts (user_id, local_date, nonce, header, paper_keys,"
                " message, state, claimed_at, deadline) VALUES (?, '2026-11-30', 'x', 'h',"
                " '[]', '{}', 'claimed', 'now', 'later')", (READER,))
        dms = FakeDms(now=now, journal=journal, sigkill_at=kill_at)
        await app.personal.run_scheduled(READER, dms, now)

    asyncio.run(main())
    """
)


async def prepare(path: Path) -> None:
    app = await App.open(settings_for(path))
    try:
        await app.corpus.load([BUNDLED_CORPUS], default_area="预训练", now=SLOT)
        await app.subscriptions.subscribe(1, READER, "scaling laws", SLOT - timedelta(days=2))
        await app.subscriptions.subscribe(2, READER, "MoE", SLOT - timedelta(days=2))
        await app.personal.set_time(
            user_id=READER,
            guild_id=1,
            time_text="09:00",
            timezone_text="Asia/Shanghai",
            now=SLOT - timedelta(days=1),
        )
    finally:
        await app.close()


@pytest.mark.parametrize(
    "kill_at", ["in-claim", "after-claim", "in-open", "after-open", "before-request", "after-send"]
)
@pytest.mark.parametrize("back_after", [timedelta(seconds=50), timedelta(minutes=40)])
async def test_sigkill_at_any_step_still_sends_one_dm(
    tmp_path: Path, kill_at: str, back_after: timedelta
) -> None:
    db_path, journal = tmp_path / "paperbot.sqlite3", tmp_path / "discord.json"
    await prepare(db_path)
    run_until_killed(CHILD, db_path, journal, kill_at, SLOT.isoformat())

    now = SLOT + back_after
    discord = FakeDms(now=now, journal=journal)
    app = await App.open(settings_for(db_path))
    try:
        await app.personal.recover(discord, now)
        await app.personal.run_scheduled(READER, discord, now)
        await app.personal.run_scheduled(READER, discord, now + timedelta(minutes=1))
        post = await store.day_post(app._db, READER, SLOT.date())
        # The next days never bring back a paper of that DM.
        for day in (1, 2, 3):
            discord.now = SLOT + timedelta(days=day)
            await app.personal.run_scheduled(READER, discord, discord.now)
    finally:
        await app.close()

    reloaded = FakeDms(now=now, journal=journal)
    first_day = [m for m in reloaded.messages if m.nonce == personal_nonce(READER, SLOT.date())]
    assert len(first_day) == 1, f"{len(first_day)} DMs after {kill_at}"
    assert post is not None
    assert post.state == "confirmed"
    assert post.message_id == first_day[0].id
    assert first_day[0].channel_id == dm_channel(READER)
    titles = [e.title for m in reloaded.messages for e in m.message.embeds]
    assert len(reloaded.messages) == 4
    assert len(titles) == len(set(titles))
