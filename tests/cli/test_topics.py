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
    assert "scaling-laws" in out
    assert "Scaling laws · 缩放定律" in out
    assert "papers match a topic" in out


def test_topics_on_an_empty_database(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topics", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["papers"] == 0
    assert report["unmatched"] == []


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
        (222, 1, "dpo"),  # an alias: a keyword matched within its topic
    ]
    assert rows[1]["kind"] == "keyword"
    assert rows[1]["label"] == "“Toeplitz” (keyword · 关键词)"
    assert main(["subscriptions", "--guild", "111", "--user", "1", "--json"]) == 0
    assert [r["topic"] for r in json.loads(capsys.readouterr().out)] == ["scaling-laws"]
    assert main(["subscriptions", "--user", "1"]) == 0
    out = capsys.readouterr().out
    assert "Scaling laws · 缩放定律" in out
    assert "“DPO” (keyword" in out
    assert "2 subscriptions by 2 users in 2 servers" in out


def test_subscriptions_rejects_a_bad_id() -> None:
    with pytest.raises(SystemExit) as exited:
        main(["subscriptions", "--guild", "abc"])
    assert exited.value.code == 2


def test_topics_match_lists_the_digest_matches_with_reasons(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["load"])
    capsys.readouterr()
    assert main(["topics", "match", "scaling laws", "--limit", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["kind"], report["key"], report["zh"]) == ("topic", "scaling-laws", "缩放定律")
    assert len(report["papers"]) == 3 < report["matches"]
    scores = [p["score"] for p in report["papers"]]
    assert scores == sorted(scores, reverse=True)
    assert all(p["reasons"] and p["id"] > 0 and p["title"] for p in report["papers"])


async def _digest_matches(text: str) -> tuple[list[int], list[float]]:
    """What the digest picks from for this text (the service it calls)."""
    app = await App.open(load_settings())
    try:
        found = await app.topics.matches(app.topics.resolve(text))
        return [int(i) for i in found.ids], [round(float(s), 4) for s in found.scores]
    finally:
        await app.close()


@pytest.mark.parametrize("text", ["Chinchilla", "低秩", "DPO"])
def test_topics_match_agrees_with_what_the_digest_picks_from(
    capsys: pytest.CaptureFixture[str], text: str
) -> None:
    main(["load"])
    capsys.readouterr()
    assert main(["topics", "match", text, "--limit", "1000", "--json"]) == 0
    papers = json.loads(capsys.readouterr().out)["papers"]
    ids, scores = asyncio.run(_digest_matches(text))
    assert [p["id"] for p in papers] == ids
    assert [p["score"] for p in papers] == scores


def test_topics_match_table_for_a_keyword(capsys: pytest.CaptureFixture[str]) -> None:
    main(["load"])
    capsys.readouterr()
    assert main(["topics", "match", "低秩", "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "“低秩” (keyword · 关键词) [keyword 低秩]"
    assert "summary: 低秩" in out
    assert "papers match (showing 2)" in out


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["topics", "match", "zzqqxx"], 1, "no paper matches “zzqqxx” (keyword · 关键词)\n"),
        (
            ["topics", "match", "quantization-aware training"],
            1,
            "no paper matches “quantization-aware training” (keyword · 关键词); the digest "
            "offers papers on Quantization and low-bit training · 量化与低比特训练 as close to it",
        ),
        (
            ["topics", "match", "hallucination"],
            1,
            "no paper matches “hallucination” (keyword · 关键词); did you mean "
            "Knowledge, editing and factuality · 知识、编辑与事实性?",
        ),
        (["topics", "match", "   "], 2, "Type a topic"),
        (["topics", "match", "!!!"], 2, "at least one letter"),
        (["topics", "match", "the"], 2, "only common words"),
        (["topics", "match", "的"], 2, "only common words"),
    ],
)
def test_topics_match_exit_codes(
    capsys: pytest.CaptureFixture[str], argv: list[str], code: int, message: str
) -> None:
    main(["load"])
    capsys.readouterr()
    assert main(argv) == code
    err = capsys.readouterr().err
    assert err.startswith("paperbot: ")
    assert message in err
    assert "Traceback" not in err


def test_topics_match_json_names_the_close_topics(capsys: pytest.CaptureFixture[str]) -> None:
    main(["load"])
    capsys.readouterr()
    assert main(["topics", "match", "quantization-aware training", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["matches"], data["close_to"], data["instead"]) == (
        0,
        ["quantization"],
        ["quantization"],
    )
    assert main(["topics", "match", "hallucination", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["close_to"], data["instead"]) == ([], ["knowledge-factuality"])
    assert main(["topics", "match", "scaling laws", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["close_to"], data["instead"]) == ([], [])  # matches: none named


def test_topics_match_on_an_empty_database(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topics", "match", "scaling laws"]) == 1
    assert "no papers loaded" in capsys.readouterr().err


def test_topics_match_refuses_a_bad_limit() -> None:
    with pytest.raises(SystemExit) as exited:
        main(["topics", "match", "DPO", "--limit", "0"])
    assert exited.value.code == 2
