"""Filesystem and database faults (issue 13, item 4): one line, nothing lost."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from paperbot.cli import main
from paperbot.storage.db import Database, StorageError
from tests.support.app import REPO
from tests.support.corpus import refuse_listing
from tests.support.process import run_paperbot


def cli(env_db: str, *argv: str, extra: dict[str, str] | None = None) -> tuple[int, str]:
    """The real process, so a traceback from any thread shows up on stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERBOT_", "DISCORD_"))}
    env |= {"PAPERBOT_CONFIG": str(REPO / "config" / "paperbot.toml"), "PAPERBOT_DB": env_db}
    env |= extra or {}
    done = run_paperbot(*argv, env=env)
    return done.returncode, done.stderr


@pytest.mark.parametrize(
    ("database", "expected"),
    [
        # A folder that can't be created (its parent is a file; /proc takes no folders).
        ("/etc/hostname/sub/db.sqlite3", "cannot create the database folder /etc/hostname/sub"),
        ("/proc/paperbot-nope/db.sqlite3", "cannot create the database folder /proc/paperbot-nope"),
        # A folder where no file can be created (read-only even for root).
        ("/proc/paperbot.sqlite3", "cannot open database /proc/paperbot.sqlite3"),
        ("/dev/null", "database /dev/null is not a regular file"),
    ],
)
def test_unusable_database_paths_give_one_line(database: str, expected: str) -> None:
    code, err = cli(database, "list")
    assert code == 1
    assert err.startswith(f"paperbot: {expected}"), err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    assert "Event loop is closed" not in err


async def test_open_failure_leaves_no_worker_thread_behind() -> None:
    import threading

    def workers() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if "_connection_worker_thread" in t.name]

    before = workers()
    with pytest.raises(StorageError):
        await Database.open("/proc/paperbot.sqlite3")
    assert workers() == before


async def test_locked_database_is_retried_then_one_line(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    await (await Database.open(path)).close()  # create and migrate
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    db = await Database.open(path, busy_timeout_ms=50, lock_wait_seconds=0.5)
    try:
        with pytest.raises(StorageError, match=r"is locked by another process"):
            async with db.transaction() as conn:
                await conn.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
    finally:
        holder.rollback()
        holder.close()
        await db.close()


async def test_a_lock_released_in_time_is_waited_for(tmp_path: Path) -> None:
    import asyncio

    path = tmp_path / "db.sqlite3"
    await (await Database.open(path)).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    db = await Database.open(path, busy_timeout_ms=50, lock_wait_seconds=10)
    loop = asyncio.get_running_loop()
    loop.call_later(0.4, holder.rollback)
    try:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
        async with db.conn.execute("SELECT value FROM meta WHERE key = 'k'") as cursor:
            assert await cursor.fetchone() == ("v",)
    finally:
        holder.close()
        await db.close()


def test_locked_database_in_the_cli_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    assert cli(str(path), "load")[0] == 0
    config = tmp_path / "paperbot.toml"
    config.write_text("[database]\nlock_wait_seconds = 1\n")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        code, err = cli(str(path), "load", extra={"PAPERBOT_CONFIG": str(config)})
    finally:
        holder.rollback()
        holder.close()
    assert code == 1
    assert "Traceback" not in err
    assert f"database {path} is locked by another process" in err


async def test_full_disk_is_one_error_and_loses_nothing(tmp_path: Path) -> None:
    from paperbot.clock import utc_now
    from paperbot.config import BUNDLED_CORPUS
    from paperbot.services.corpus import load_corpus
    from paperbot.storage import papers

    path = tmp_path / "db.sqlite3"
    db = await Database.open(path)
    try:
        first = sorted(BUNDLED_CORPUS.glob("*.txt"))[:1]
        await load_corpus(db, first, default_area="预训练", now=utc_now())
        before = await papers.paper_count(db)
        async with db.conn.execute("PRAGMA page_count") as cursor:
            row = await cursor.fetchone()
        assert row is not None
        await db.conn.execute(f"PRAGMA max_page_count = {row[0] + 2}")
        with pytest.raises(StorageError, match=r"database .* is full"):
            await load_corpus(db, [BUNDLED_CORPUS], default_area="预训练", now=utc_now())
        assert await papers.paper_count(db) == before
    finally:
        await db.close()


def test_full_disk_in_the_cli_is_one_line(
    cli_env: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["load", str(sorted((REPO / "src/paperbot/data/corpus").glob("*.txt"))[0])]) == 0
    capsys.readouterr()
    real_configure = Database._configure

    async def tiny(self: Database) -> None:
        await real_configure(self)
        async with self.conn.execute("PRAGMA page_count") as cursor:
            row = await cursor.fetchone()
        assert row is not None
        await self.conn.execute(f"PRAGMA max_page_count = {row[0] + 2}")

    monkeypatch.setattr(Database, "_configure", tiny)
    assert main(["load"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("paperbot: database ")
    assert "is full" in err
    assert err.count("\n") == 1
    monkeypatch.undo()
    monkeypatch.setenv("PAPERBOT_DB", str(cli_env / "cli.sqlite3"))
    monkeypatch.setenv("PAPERBOT_CONFIG", str(REPO / "config" / "paperbot.toml"))
    assert main(["list", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) > 0


def test_run_with_an_unreadable_corpus_folder_is_one_line(
    cli_env: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = cli_env / "corpus"
    folder.mkdir()
    monkeypatch.setenv("PAPERBOT_CORPUS", str(folder))
    monkeypatch.setenv("DISCORD_TOKEN", "not-used-before-login")
    refuse_listing(monkeypatch, folder)
    assert main(["run"]) == 1
    err = capsys.readouterr().err
    assert f"paperbot: cannot read folder {folder}: Permission denied\n" in err
    assert "Traceback" not in err


def test_run_with_an_unusable_database_is_one_line() -> None:
    code, err = cli("/proc/paperbot.sqlite3", "run", extra={"DISCORD_TOKEN": "x"})
    assert code == 1
    assert "paperbot: cannot open database /proc/paperbot.sqlite3" in err
    assert "Traceback" not in err
    assert "Event loop is closed" not in err
