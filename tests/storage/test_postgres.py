"""The PostgreSQL backend: placeholders, migrations kept in step with
SQLite's, and the cross-process guarantees (claims, shard leases)."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, date, datetime, time, timedelta

import pytest

from paperbot.core.render import MessageData
from paperbot.storage import digests, open_database
from paperbot.storage.backend import Database
from paperbot.storage.db import StorageError, available_migrations
from paperbot.storage.postgres import redacted, to_postgres
from tests.support.postgres import fresh_schema, postgres_url

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
DAY = date(2026, 11, 30)


@pytest.mark.parametrize(
    ("sqlite", "postgresql"),
    [
        ("SELECT 1", "SELECT 1"),
        ("SELECT ? , ?", "SELECT $1 , $2"),
        ("WHERE (?1 IS NULL OR g = ?1) AND ?2", "WHERE ($1 IS NULL OR g = $1) AND $2"),
        ("SELECT '?' || ?", "SELECT '?' || $1"),
        ("SELECT 'it''s ?' , ?", "SELECT 'it''s ?' , $1"),
    ],
)
def test_placeholders_become_numbered(sqlite: str, postgresql: str) -> None:
    assert to_postgres(sqlite) == postgresql


def test_a_password_never_reaches_a_message() -> None:
    assert redacted("postgresql://bot:s3cret@db:5432/paperbot") == (
        "postgresql://bot:***@db:5432/paperbot"
    )
    assert redacted("postgresql://bot@db/paperbot") == "postgresql://bot@db/paperbot"


def test_every_migration_exists_for_both_backends() -> None:
    """A new store's migration needs its PostgreSQL twin (same number and
    name) in migrations/postgresql/: this fails without one, PostgreSQL or not."""
    sqlite = [name for _, name, _ in available_migrations("sqlite")]
    postgresql = [name for _, name, _ in available_migrations("postgresql")]
    assert sqlite == postgresql


async def claim_day(db: Database, guild_id: int) -> bool:
    try:
        await digests.claim(
            db,
            guild_id=guild_id,
            channel_id=guild_id + 1,
            kind="scheduled",
            local_date=DAY,
            nonce=f"{guild_id}-{DAY}",
            message=MessageData(content="header\nbody"),
            paper_ids=[],
            now=NOW,
            deadline=NOW + timedelta(hours=15),
        )
    except digests.AlreadyClaimed:
        return False
    return True


@pytest.mark.postgres
async def test_processes_racing_for_claims_make_exactly_one_each() -> None:
    """Four pools (four processes' connections) claim the same 200 servers'
    day at once: the unique index lets exactly one claim per server through."""
    async with fresh_schema(postgres_url()) as url:
        pools = [await open_database(url) for _ in range(4)]
        try:
            guilds = [(n + 1) << 22 for n in range(200)]
            won = await asyncio.gather(*(claim_day(db, guild) for guild in guilds for db in pools))
            assert sum(won) == len(guilds)
            rows = await pools[0].fetch_all(
                "SELECT guild_id, count(*) FROM digest_posts GROUP BY guild_id"
            )
            assert sorted(int(g) for g, _ in rows) == guilds
            assert {int(n) for _, n in rows} == {1}
        finally:
            for db in pools:
                await db.close()


@pytest.mark.postgres
async def test_a_shard_lease_is_held_until_its_process_goes() -> None:
    async with fresh_schema(postgres_url()) as url:
        first, second = await open_database(url), await open_database(url)
        try:
            assert await first.hold("paperbot-shard:4:1")
            assert not await second.hold("paperbot-shard:4:1")
            assert await second.hold("paperbot-shard:4:2")
            await first.close()  # the process dies: its connection closes
            assert await second.hold("paperbot-shard:4:1")
        finally:
            await first.close()
            await second.close()


@pytest.mark.postgres
async def test_processes_starting_together_migrate_once() -> None:
    async with fresh_schema(postgres_url()) as url:
        pools = await asyncio.gather(*(open_database(url) for _ in range(3)))
        try:
            rows = await pools[0].fetch_all("SELECT version FROM paperbot_schema ORDER BY 1")
            assert [int(v) for (v,) in rows] == list(
                range(1, len(available_migrations("postgresql")) + 1)
            )
        finally:
            for db in pools:
                await db.close()


@pytest.mark.postgres
async def test_a_database_a_newer_paperbot_migrated_is_refused() -> None:
    async with fresh_schema(postgres_url()) as url:
        db = await open_database(url)
        try:
            async with db.transaction() as conn:
                await conn.execute("INSERT INTO paperbot_schema (version, name) VALUES (999, 'x')")
        finally:
            await db.close()
        with pytest.raises(StorageError, match=r"schema is version 999, newer than this paperbot"):
            await open_database(url)


@pytest.mark.postgres
async def test_storage_errors_are_one_line_storage_errors() -> None:
    from paperbot.storage import ConstraintError

    async with fresh_schema(postgres_url()) as url:
        db = await open_database(url)
        try:
            with pytest.raises(StorageError, match="no_such_table"):
                await db.fetch_all("SELECT * FROM no_such_table")
            async with db.transaction() as tx:
                await tx.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
            with pytest.raises(ConstraintError):
                async with db.transaction() as tx:
                    await tx.execute("INSERT INTO meta (key, value) VALUES ('k', 'w')")
            assert await db.fetch_one("SELECT value FROM meta WHERE key = 'k'") == ("v",)
        finally:
            await db.close()


async def _connections_named(url: str, name: str, *, until_none: bool = False) -> int:
    """Open connections whose application_name is `name`; `until_none` gives
    closed ones a moment to go (their server processes exit just after)."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        for _ in range(50 if until_none else 1):
            count = int(
                await conn.fetchval(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", name
                )
            )
            if count == 0:
                break
            await asyncio.sleep(0.05)
        return count
    finally:
        await conn.close()


def _named(url: str) -> tuple[str, str]:
    name = f"paperbot_test_{uuid.uuid4().hex[:8]}"
    return f"{url}&application_name={name}", name


@pytest.mark.postgres
async def test_locks_taken_at_once_share_one_session_connection() -> None:
    async with fresh_schema(postgres_url()) as url:
        named, name = _named(url)
        db = await open_database(named)
        try:
            taken = await asyncio.gather(db.hold("paperbot-a"), db.hold("paperbot-b"))
            assert list(taken) == [True, True]
            # The pool's one connection and one session connection, not two.
            assert await _connections_named(url, name) == 2
        finally:
            await db.close()


@pytest.mark.postgres
async def test_closing_while_connections_open_leaves_none_behind() -> None:
    """close() while the pool is still opening connections for queries
    already asked (a background save as the bot stops): the queries are
    answered, a query after close gets one clear line, and no connection
    is left open (asyncpg's own close does not wait for one being opened)."""
    async with fresh_schema(postgres_url()) as url:
        named, name = _named(url)
        db = await open_database(named)
        queries = [asyncio.create_task(db.fetch_one("SELECT 1")) for _ in range(6)]
        await asyncio.sleep(0)  # each is in pool.acquire(): most open a connection
        await db.close()
        assert await asyncio.gather(*queries) == [(1,)] * 6
        with pytest.raises(StorageError, match="closed"):
            await db.fetch_one("SELECT 1")
        assert await _connections_named(url, name, until_none=True) == 0


async def test_an_unreachable_server_is_one_clear_line() -> None:
    with pytest.raises(
        StorageError, match=r"cannot open database postgresql://nobody@127\.0\.0\.1:9/"
    ):
        await open_database("postgresql://nobody@127.0.0.1:9/none")


@pytest.mark.postgres
async def test_a_schedule_change_reaches_every_listening_process() -> None:
    """/digest setup in one process: the owner hears the guild id (LISTEN/NOTIFY)."""
    async with fresh_schema(postgres_url()) as url:
        setup_side, owner = await open_database(url), await open_database(url)
        heard: asyncio.Queue[str] = asyncio.Queue()
        try:
            await owner.listen(digests.SETTINGS_CHANNEL, heard.put_nowait)
            await digests.save_settings(
                setup_side,
                guild_id=5 << 22,
                channel_id=9,
                post_time=time(8, 30),
                timezone="UTC",
                count=3,
                updated_by=None,
                now=NOW,
            )
            assert await asyncio.wait_for(heard.get(), timeout=10) == str(5 << 22)
            await digests.set_enabled(setup_side, 5 << 22, False, NOW)
            assert await asyncio.wait_for(heard.get(), timeout=10) == str(5 << 22)
        finally:
            await setup_side.close()
            await owner.close()
