"""`paperbot saved`, `paperbot forget` and `paperbot purge`, in-process."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from bibtexparser.entrypoint import parse_string

from paperbot.cli import main
from paperbot.clock import utc_now
from paperbot.config import load_settings
from paperbot.services.app import App
from paperbot.services.user_data import GRACE

GUILD, GONE_GUILD, FRESH_GUILD, USER = 4242, 5151, 6161, 77


@pytest.fixture(autouse=True)
def isolated_env(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["load"]) == 0
    capsys.readouterr()
    return cli_env


def with_app(job: Callable[[App], Awaitable[None]]) -> None:
    async def run() -> None:
        app = await App.open(load_settings())
        try:
            await job(app)
        finally:
            await app.close()

    asyncio.run(run())


def seed(guild: int = GUILD) -> None:
    async def job(app: App) -> None:
        now = datetime.now(UTC)
        await app.subscriptions.subscribe(guild, USER, "reasoning", now)
        for paper_id in (1, 2, 3):
            await app.library.toggle_saved(guild, USER, paper_id, now + timedelta(seconds=paper_id))

    with_app(job)


def test_saved_prints_bibtex_a_parser_reads(capsys: pytest.CaptureFixture[str]) -> None:
    seed()
    assert main(["saved", "--guild", str(GUILD), "--user", str(USER)]) == 0
    out, err = capsys.readouterr()
    library = parse_string(out)
    assert library.failed_blocks == []
    assert len(library.entries) == 3
    assert "3 saved papers (paperbot-saved-" in err


@pytest.mark.parametrize("fmt", ["markdown", "csv", "json"])
def test_saved_other_formats(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    seed()
    assert main(["saved", "--guild", str(GUILD), "--user", str(USER), "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert not out.startswith("\ufeff")
    if fmt == "json":
        assert len(json.loads(out)) == 3


def test_saved_needs_guild_and_user(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["saved", "--guild", str(GUILD)])
    assert exit_info.value.code == 2
    assert "--user" in capsys.readouterr().err


def test_forget_removes_the_users_data_in_that_server(capsys: pytest.CaptureFixture[str]) -> None:
    seed()
    seed(FRESH_GUILD)
    assert main(["forget", "--guild", str(GUILD), "--user", str(USER), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"subscriptions": 1, "saved_papers": 3}
    assert main(["forget", "--guild", str(GUILD), "--user", str(USER)]) == 0
    out = capsys.readouterr().out
    assert "Saved papers: 0 removed" in out
    assert f"forgot user {USER} in server {GUILD}: 0 rows" in out

    async def check(app: App) -> None:
        assert sum((await app.user_data.counts(FRESH_GUILD, USER)).values()) == 4

    with_app(check)


def test_purge_dry_run_then_purge(capsys: pytest.CaptureFixture[str]) -> None:
    seed(GONE_GUILD)
    seed(FRESH_GUILD)

    async def leave(app: App) -> None:
        await app.user_data.guild_left(GONE_GUILD, utc_now() - GRACE - timedelta(hours=1))
        await app.user_data.guild_left(FRESH_GUILD, utc_now() - timedelta(days=3))

    with_app(leave)
    assert main(["purge", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would purge 1 servers" in out
    assert f"server {GONE_GUILD}" in out
    assert "subscriptions 1, saved_papers 3" in out
    assert "kept for a re-invite: 1 servers" in out

    assert main(["purge", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [p["guild_id"] for p in report["purged"]] == [GONE_GUILD]
    assert [k["guild_id"] for k in report["kept"]] == [FRESH_GUILD]

    async def check(app: App) -> None:
        assert sum((await app.user_data.counts(GONE_GUILD, USER)).values()) == 0
        assert sum((await app.user_data.counts(FRESH_GUILD, USER)).values()) == 4

    with_app(check)
    assert main(["purge"]) == 0
    assert "purged 0 servers" in capsys.readouterr().out
