"""`paperbot similar` and `paperbot digest preview --user`."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from paperbot.cli import main
from paperbot.config import load_settings
from paperbot.services.app import App

GUILD, USER = 4242, 77


@pytest.fixture(autouse=True)
def isolated_env(cli_env: Path) -> Path:
    return cli_env


def test_similar_json_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    main(["load"])
    capsys.readouterr()
    assert main(["similar", "mixture of experts", "--limit", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["similar"]) == 3
    assert data["paper"]["id"] not in {s["id"] for s in data["similar"]}
    assert main(["similar", str(data["paper"]["id"])]) == 0
    assert "Papers like:" in capsys.readouterr().out
    assert main(["similar", "zzqx qqzx"]) == 1
    assert "no loaded paper" in capsys.readouterr().err


def test_preview_for_one_reader_shows_how_the_profile_moved_picks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["load"])
    capsys.readouterr()

    async def prepare() -> int:
        app = await App.open(load_settings())
        try:
            now = datetime.now(UTC)
            await app.subscriptions.subscribe(GUILD, USER, "reasoning", now)
            plan, _ = await app.digest.plan(guild_id=GUILD, channel_id=None, count=3, reader=USER)
            disliked = plan.picks[0].paper_id
            await app.feedback.vote(GUILD, USER, disliked, -1, now)
            return disliked
        finally:
            await app.close()

    disliked = asyncio.run(prepare())
    argv = ["digest", "preview", "--guild", str(GUILD), "--user", str(USER), "--count", "3"]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["user"] == USER
    assert disliked not in {p["id"] for p in data["picks"]}
    assert [p["rank"] for p in data["picks"]] == [1, 2, 3]
    assert all("profile" in p and "rank_without_profile" in p for p in data["picks"])
    assert main(argv) == 0
    assert "profile " in capsys.readouterr().out
