"""`paperbot digest preview` and `paperbot bench digest`."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from paperbot.cli import main
from paperbot.config import load_settings
from paperbot.services.app import App

GUILD = 4242


@pytest.fixture(autouse=True)
def isolated_env(cli_env: Path) -> Path:
    return cli_env


def preview_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    code = main(["digest", "preview", "--json", *argv])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, dict)
    return data


def test_preview_for_topics(capsys: pytest.CaptureFixture[str]) -> None:
    main(["load"])
    capsys.readouterr()
    data = preview_json(capsys, "--topics", "RLHF, 扩散模型", "--count", "4")
    picks = data["picks"]
    assert isinstance(picks, list)
    assert len(picks) == 4
    for pick in picks:
        assert pick["kind"] == "match"
        assert pick["reason"].startswith("matches your topic")
        assert pick["subscribers"] == 1
        assert any("RLHF" in t or "扩散" in t for t in pick["topics"])
    assert data["nothing_left"] is False
    assert "每日论文" in str(data["header"])


def test_preview_for_a_guild_uses_its_subscribers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["load"])
    capsys.readouterr()

    async def subscribe() -> None:
        app = await App.open(load_settings())
        try:
            now = datetime.now(UTC)
            for user in (1, 2, 3):
                await app.subscriptions.subscribe(GUILD, user, "reasoning", now)
        finally:
            await app.close()

    asyncio.run(subscribe())
    data = preview_json(capsys, "--guild", str(GUILD), "--count", "3")
    picks = data["picks"]
    assert isinstance(picks, list)
    assert len(picks) == 3
    # One followed topic with enough matches fills the whole post: no filler.
    assert [p["subscribers"] for p in picks] == [3, 3, 3]
    assert [p["kind"] for p in picks] == ["match"] * 3
    assert picks[0]["reason"].endswith("— 3 subscribers · 3 位订阅者")
    # Another server has no subscribers: newest papers fill its digest, marked so.
    # The preview also notes that the server is unknown (exit 1).
    assert main(["digest", "preview", "--json", "--guild", "1", "--count", "2"]) == 1
    other = json.loads(capsys.readouterr().out)
    assert [p["kind"] for p in other["picks"]] == ["fill", "fill"]
    assert all(p["reason"].startswith("new to this channel") for p in other["picks"])


@pytest.mark.parametrize(
    "topics",
    [
        "scaling laws",
        "scaling laws, 缩放律",
        "缩放律, scaling laws, 縮放定律",
        "scaling laws, Chinchilla",
        "Chinchilla, scaling laws, compute-optimal",
    ],
)
def test_synonymous_topics_count_once(topics: str, capsys: pytest.CaptureFixture[str]) -> None:
    main(["load"])
    capsys.readouterr()
    data = preview_json(capsys, "--topics", topics, "--count", "10")
    picks = data["picks"]
    assert isinstance(picks, list)
    assert len(picks) == 10
    assert {tuple(p["topics"]) for p in picks} == {("Scaling laws · 缩放定律",)}
    assert all(p["kind"] == "match" for p in picks)
    assert all(p["reason"].startswith("matches your topic Scaling laws") for p in picks)


def test_a_keyword_that_runs_short_is_followed_by_the_topic_it_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["load"])
    capsys.readouterr()
    assert main(["topics", "match", "quantization", "--json", "--limit", "50"]) == 0
    quantization = {m["id"] for m in json.loads(capsys.readouterr().out)["papers"]}
    data = preview_json(capsys, "--topics", "量化感知训练", "--count", "5")
    picks = data["picks"]
    assert isinstance(picks, list)
    # One paper says it; Quantization's papers come next, as near, not as fill
    # from outside the reader's topics and never as matches.
    assert [p["kind"] for p in picks] == ["match", "fill", "fill", "fill", "fill"]
    for pick in picks[1:]:
        assert pick["reason"].startswith("close to your topic “量化感知训练”")
        assert pick["id"] in quantization


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    main(["load"])
    capsys.readouterr()
    assert main(["digest", "preview", "--count", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("📚 Daily paper digest")
    assert "1. " in out
    assert "2. " in out
    assert "2 picks;" in out


@pytest.mark.parametrize("count", ["0", "11", "x"])
def test_bad_count_is_a_usage_error(count: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["digest", "preview", "--count", count])
    assert info.value.code == 2
    assert "count" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("topics", "message"),
    [
        ("", "--topics needs at least one topic"),
        ("the", "That topic is only common words"),  # one entry: no need to name it
        ("scaling laws, the , DPO", "“the”: That topic is only common words"),
        ("!!!, scaling laws", "“!!!”: A topic needs at least one letter"),
    ],
)
def test_an_unusable_topic_is_a_usage_error_naming_the_entry(
    topics: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["load"])
    capsys.readouterr()
    assert main(["digest", "preview", "--topics", topics]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"paperbot: {message}")
    assert "Traceback" not in err


def test_bench_digest_small(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "bench",
            "digest",
            "--papers",
            "3000",
            "--subscribers",
            "60",
            "--topics",
            "20",
            "--posted",
            "300",
            "--repeat",
            "1",
            "--json",
        ]
    )
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["same_picks_as_baseline"] is True
    assert result["papers"] == 3000
    assert result["count"] == 10
    assert result["pick_vs_baseline"] > 0
