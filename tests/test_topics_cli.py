"""`paperbot topics` and `paperbot subscriptions`: output, JSON, exit codes."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from paperbot.cli import main
from paperbot.config import load_settings
from paperbot.services.app import App


@pytest.fixture(autouse=True)
def isolated_env(cli_env: Path) -> Path:
    return cli_env


def test_topics_json_reports_coverage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["load"]) == 0
    capsys.readouterr()
    assert main(["topics", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["papers"] > 250
    assert 30 <= len(report["topics"]) <= 60
    assert all(t["papers"] >= 1 for t in report["topics"])
    assert report["covered"] >= 0.85
    assert len(report["unmatched"]) == round(report["papers"] * (1 - report["covered"]))
    scaling = next(t for t in report["topics"] if t["id"] == "scaling-laws")
    assert scaling["zh"] == "缩放定律"


def test_topics_table(capsys: pytest.CaptureFixture[str]) -> None:
    main(["load"])
    capsys.readouterr()
    assert main(["topics"]) == 0
    out = capsys.readouterr().out
    assert "scaling-laws" in out and "Scaling laws · 缩放定律" in out
    assert "papers match a topic" in out


def test_topics_on_an_empty_database(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topics", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["papers"] == 0 and report["unmatched"] == []


def test_malformed_vocabulary_exits_2_naming_the_line(
    capsys: pytest.CaptureFixture[str], isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vocabulary = isolated_env / "topics.toml"
    vocabulary.write_text('[[topic]]\nid = "a"\nname = "A"\nzh = "甲"\nalias = []\n', "utf-8")
    config = isolated_env / "paperbot.toml"
    config.write_text('[topics]\npath = "topics.toml"\n', encoding="utf-8")
    monkeypatch.setenv("PAPERBOT_CONFIG", str(config))
    for command in (["topics"], ["list"], ["subscriptions"]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert f"{vocabulary}:5: unknown key 'alias'" in err
        assert "Traceback" not in err


def _seed_subscriptions() -> None:
    async def seed() -> None:
        app = await App.open(load_settings())
        try:
            now = datetime(2026, 11, 30, tzinfo=UTC)
            subscribe = app.subscriptions.subscribe
            await subscribe(111, 1, "scaling laws", now)
            await subscribe(111, 2, "Toeplitz", now)
            await subscribe(222, 1, "DPO", now)
        finally:
            await app.close()

    asyncio.run(seed())


def test_subscriptions_listing(capsys: pytest.CaptureFixture[str]) -> None:
    _seed_subscriptions()
    assert main(["subscriptions", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["guild_id"], r["user_id"], r["topic"]) for r in rows] == [
        (111, 1, "scaling-laws"),
        (111, 2, "toeplitz"),
        (222, 1, "alignment-rlhf"),
    ]
    assert rows[1]["kind"] == "keyword" and rows[1]["label"] == "“Toeplitz” (keyword · 关键词)"
    assert main(["subscriptions", "--guild", "111", "--user", "1", "--json"]) == 0
    assert [r["topic"] for r in json.loads(capsys.readouterr().out)] == ["scaling-laws"]
    assert main(["subscriptions", "--user", "1"]) == 0
    out = capsys.readouterr().out
    assert "Scaling laws · 缩放定律" in out and "Alignment and RLHF" in out
    assert "2 subscriptions by 2 users in 2 servers" in out


def test_subscriptions_rejects_a_bad_id(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["subscriptions", "--guild", "abc"])
    assert exited.value.code == 2
