"""`paperbot purge`: servers gone for over 30 days, shown and purged."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from paperbot.cli import main
from paperbot.clock import utc_now
from paperbot.services.app import App
from paperbot.services.user_data import GRACE
from tests.support.user_data import FRESH_GUILD, GONE_GUILD, USER, seed, with_app


@pytest.fixture(autouse=True)
def isolated_env(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["load"]) == 0
    capsys.readouterr()
    return cli_env


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
