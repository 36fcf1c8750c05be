"""`paperbot forget`: everything about a user in one server, deleted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperbot.cli import main
from paperbot.services.app import App
from tests.support.user_data import FRESH_GUILD, GUILD, USER, seed, with_app


@pytest.fixture(autouse=True)
def isolated_env(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["load"]) == 0
    capsys.readouterr()
    return cli_env


def test_forget_removes_the_users_data_in_that_server(capsys: pytest.CaptureFixture[str]) -> None:
    seed()
    seed(FRESH_GUILD)
    assert main(["forget", "--guild", str(GUILD), "--user", str(USER), "--json"]) == 0
    removed = json.loads(capsys.readouterr().out)
    assert removed == {"subscriptions": 1, "saved_papers": 3} | dict.fromkeys(
        ("votes", "mutes", "personal_digest", "personal_digests", "personal_received"), 0
    )
    assert main(["forget", "--guild", str(GUILD), "--user", str(USER)]) == 0
    out = capsys.readouterr().out
    assert "Saved papers: 0 removed" in out
    assert f"forgot user {USER} in server {GUILD}: 0 rows" in out

    async def check(app: App) -> None:
        assert sum((await app.user_data.counts(FRESH_GUILD, USER)).values()) == 4

    with_app(check)
