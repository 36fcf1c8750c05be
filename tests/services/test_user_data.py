"""My data: counts, export and forget per reader; a departed server's purge."""

from __future__ import annotations

from datetime import timedelta

import pytest

from paperbot.services.app import App
from paperbot.services.user_data import GRACE, SERVER_DATA, USER_DATA
from paperbot.storage.user_data import OwnedTable
from tests.support.app import FIXED_NOW
from tests.support.digest import FakeDiscord

GUILD, OTHER_GUILD, USER, OTHER_USER, CHANNEL = 1, 2, 10, 11, 500


async def reader_with_data(app: App, guild: int = GUILD, user: int = USER) -> None:
    await app.subscriptions.subscribe(guild, user, "diffusion", FIXED_NOW)
    await app.subscriptions.subscribe(guild, user, "speculative decoding", FIXED_NOW)
    await app.library.toggle_saved(guild, user, 1, FIXED_NOW)
    await app.feedback.vote(guild, user, 2, 1, FIXED_NOW)
    await app.feedback.mute(guild, user, "quantization", FIXED_NOW)


#: What `reader_with_data` leaves, per kind (nothing of the personal DM digest).
SEEDED = {
    "subscriptions": 2,
    "saved_papers": 1,
    "votes": 1,
    "mutes": 1,
    "personal_digest": 0,
    "personal_digests": 0,
    "personal_received": 0,
}
NOTHING = dict.fromkeys(SEEDED, 0)


async def server_with_digest(app: App, guild: int = GUILD) -> None:
    await app.digest.setup(
        guild_id=guild,
        channel_id=CHANNEL + guild,
        time_text="08:00",
        timezone_text="UTC",
        count=3,
        user_id=USER,
        now=FIXED_NOW,
    )
    result = await app.digest.post_now(guild, FakeDiscord(FIXED_NOW), FIXED_NOW)
    assert result.outcome == "posted", result


async def test_counts_and_export(loaded_app: App) -> None:
    await reader_with_data(loaded_app)
    assert await loaded_app.user_data.counts(GUILD, USER) == SEEDED
    exported = await loaded_app.user_data.export(GUILD, USER)
    assert len(exported["subscriptions"]) == 2
    assert {s["user_id"] for s in exported["subscriptions"]} == {USER}
    (saved,) = exported["saved_papers"]
    paper = (await loaded_app.corpus.get_papers([1]))[0]
    assert saved["title"] == paper.title


async def test_forget_removes_only_this_reader_in_this_server(loaded_app: App) -> None:
    await reader_with_data(loaded_app)
    await reader_with_data(loaded_app, user=OTHER_USER)
    await reader_with_data(loaded_app, guild=OTHER_GUILD)
    assert await loaded_app.user_data.forget(GUILD, USER) == SEEDED
    assert await loaded_app.user_data.counts(GUILD, USER) == NOTHING
    assert await loaded_app.user_data.counts(GUILD, OTHER_USER) == SEEDED
    assert await loaded_app.user_data.counts(OTHER_GUILD, USER) == SEEDED
    assert await loaded_app.user_data.forget(GUILD, USER) == NOTHING


async def test_departed_server_kept_for_the_grace_period_then_purged(loaded_app: App) -> None:
    service = loaded_app.user_data
    await reader_with_data(loaded_app)
    await reader_with_data(loaded_app, guild=OTHER_GUILD)
    await server_with_digest(loaded_app)
    await service.guild_left(GUILD, FIXED_NOW)
    assert await service.purge_departed(FIXED_NOW + GRACE - timedelta(seconds=1)) == []
    (pending,) = await service.departures()
    assert pending.rows["subscriptions"] == 2
    assert pending.rows["digest_settings"] == 1
    assert pending.rows["digest_posts"] == 1

    later = FIXED_NOW + GRACE
    (dry,) = await service.purge_departed(later, dry_run=True)
    assert dry.guild_id == GUILD
    assert await loaded_app.digest.get_settings(GUILD) is not None

    (purged,) = await service.purge_departed(later)
    assert purged.rows == {
        "subscriptions": 2,
        "saved_papers": 1,
        "paper_votes": 1,
        "mutes": 1,
        "digest_settings": 1,
        "digest_posts": 1,
    }
    assert await loaded_app.digest.get_settings(GUILD) is None
    assert sum((await service.counts(GUILD, USER)).values()) == 0
    assert await service.counts(OTHER_GUILD, USER) == SEEDED
    assert await service.departures() == []


async def test_rejoin_cancels_the_purge(loaded_app: App) -> None:
    service = loaded_app.user_data
    await reader_with_data(loaded_app)
    await service.guild_left(GUILD, FIXED_NOW)
    assert await service.guild_joined(GUILD) is True
    assert await service.guild_joined(GUILD) is False
    assert await service.purge_departed(FIXED_NOW + 2 * GRACE) == []
    assert await service.counts(GUILD, USER) == SEEDED


async def test_second_departure_keeps_the_first_time(loaded_app: App) -> None:
    service = loaded_app.user_data
    await service.guild_left(GUILD, FIXED_NOW)
    await service.guild_left(GUILD, FIXED_NOW + timedelta(days=10))
    (pending,) = await service.departures()
    assert pending.left_at == FIXED_NOW


def test_every_registered_table_exists_with_its_columns() -> None:
    names = [kind.name for kind in USER_DATA]
    assert len(set(names)) == len(names)
    assert all(kind.table.per_user for kind in USER_DATA)
    assert not any(table.per_user for table in SERVER_DATA)


async def test_registered_tables_match_the_schema(loaded_app: App) -> None:
    # Every registered table is real and has the columns it is read by:
    # a typo in the registry fails here, not in a reader's /mydata.
    assert set(await loaded_app.user_data.export(GUILD, USER)) == {k.name for k in USER_DATA}
    await loaded_app.user_data.guild_left(GUILD, FIXED_NOW)
    (pending,) = await loaded_app.user_data.departures()
    # A server's purge takes what belongs to the server, never a setting that
    # follows the reader across servers (the personal DM digest).
    per_server = {k.table.table for k in USER_DATA if k.table.per_guild}
    assert set(pending.rows) == per_server | {t.table for t in SERVER_DATA}
    assert "personal_digest_settings" not in pending.rows


@pytest.mark.parametrize("name", ["papers; DROP TABLE papers", "Saved", "1x"])
def test_table_names_must_be_plain_identifiers(name: str) -> None:
    with pytest.raises(ValueError, match="identifier"):
        OwnedTable(name, order_by="user_id")


async def test_reconcile_at_start_up(loaded_app: App) -> None:
    service = loaded_app.user_data
    await reader_with_data(loaded_app, guild=GUILD)
    await reader_with_data(loaded_app, guild=OTHER_GUILD)
    await service.guild_left(OTHER_GUILD, FIXED_NOW)
    # The bot is only in OTHER_GUILD now: GUILD removed it while it was down,
    # OTHER_GUILD re-invited it.
    gone, back = await service.reconcile({OTHER_GUILD}, FIXED_NOW)
    assert (gone, back) == ({GUILD}, {OTHER_GUILD})
    assert [d.guild_id for d in await service.departures()] == [GUILD]
    # A second start-up changes nothing (the departure keeps its first time).
    assert await service.reconcile({OTHER_GUILD}, FIXED_NOW + GRACE) == (set(), set())
    (pending,) = await service.departures()
    assert pending.left_at == FIXED_NOW
