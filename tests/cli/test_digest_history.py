"""`paperbot digest history`: a server's delivered digests, newest first."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from paperbot.cli import main
from paperbot.config import load_settings
from paperbot.services.app import App
from tests.support.digest import FakeDiscord

GUILD, CHANNEL = 4242, 4343
NOW = datetime(2026, 11, 30, 1, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def isolated_env(cli_env: Path) -> Path:
    return cli_env


async def post_two_days() -> None:
    """Two extra digests on consecutive days, the second failing for good."""
    app = await App.open(load_settings())
    try:
        await app.digest.setup(
            guild_id=GUILD,
            channel_id=CHANNEL,
            time_text="09:00",
            timezone_text="UTC",
            count=2,
            user_id=1,
            now=NOW,
        )
        fake = FakeDiscord(now=NOW)
        assert (await app.digest.post_now(GUILD, fake, NOW)).outcome == "posted"
        fake.now = NOW + timedelta(days=1)
        assert (await app.digest.post_now(GUILD, fake, fake.now)).outcome == "posted"
        fake.gone.add(CHANNEL)
        assert (await app.digest.post_now(GUILD, fake, fake.now)).outcome == "failed"
    finally:
        await app.close()


def test_history_json_newest_first(capsys: pytest.CaptureFixture[str]) -> None:
    main(["load"])
    asyncio.run(post_two_days())
    capsys.readouterr()
    assert main(["digest", "history", "--guild", str(GUILD), "--json"]) == 0
    posts = json.loads(capsys.readouterr().out)
    assert [p["date"] for p in posts] == ["2026-12-01", "2026-11-30"]  # the failed one is left out
    assert all(len(p["picks"]) == 2 for p in posts)
    assert (
        posts[0]["url"]
        == f"https://discord.com/channels/{GUILD}/{CHANNEL}/{posts[0]['message_id']}"
    )
    assert posts[0]["picks"] != posts[1]["picks"]


def test_history_text_and_until(capsys: pytest.CaptureFixture[str]) -> None:
    main(["load"])
    asyncio.run(post_two_days())
    capsys.readouterr()
    assert main(["digest", "history", "--guild", str(GUILD), "--until", "2026-11-30"]) == 0
    out = capsys.readouterr().out
    assert "2026-11-30  extra  https://discord.com/channels/" in out
    assert "2026-12-01" not in out
    assert "   1. " in out


def test_history_nothing_posted_is_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["digest", "history", "--guild", "99"]) == 1
    assert "server 99 has no delivered digest" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [["--guild", "99", "--until", "yesterday"], ["--guild", "0"], []],
)
def test_history_bad_usage_is_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["digest", "history", *argv])
    assert exited.value.code == 2
    capsys.readouterr()
