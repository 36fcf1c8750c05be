"""`paperbot load` and `paperbot list`: summaries, JSON, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from paperbot.cli import load as load_command
from paperbot.cli import main
from paperbot.services.app import App
from tests.support.process import run_paperbot


@pytest.fixture(autouse=True)
def isolated_env(cli_env: Path) -> Path:
    return cli_env


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, object]:
    code = main(list(argv))
    return code, json.loads(capsys.readouterr().out)


def test_loading_twice_gives_identical_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, first_load = run_json(capsys, "load", "--json")
    assert code == 0
    _, first_list = run_json(capsys, "list", "--json")
    code, second_load = run_json(capsys, "load", "--json")
    _, second_list = run_json(capsys, "list", "--json")
    assert code == 0
    assert first_list == second_list
    assert isinstance(first_load, dict)
    assert isinstance(second_load, dict)
    assert second_load["new"] == 0
    assert second_load["unchanged"] == first_load["new"]


def test_list_json_fields(capsys: pytest.CaptureFixture[str]) -> None:
    main(["load"])
    capsys.readouterr()
    _, listed = run_json(capsys, "list", "--json", "--venue", "neurips", "--year", "2023")
    assert isinstance(listed, list)
    assert listed
    for paper in listed:
        assert set(paper) >= {"id", "title", "venue", "year", "area", "summaries", "sources"}
        assert (paper["venue"], paper["year"]) == ("NeurIPS", 2023)
        assert isinstance(paper["summaries"], list)
        assert all(s.startswith("neurips-2023.txt:") for s in paper["sources"])


def test_bad_lines_exit_1_and_are_listed(
    capsys: pytest.CaptureFixture[str], isolated_env: Path
) -> None:
    folder = isolated_env / "corpus"
    folder.mkdir()
    (folder / "icml-2025.txt").write_text(
        "Good Paper: 摘要。\n没有分隔符的一行\n", encoding="utf-8"
    )
    (folder / "broken.txt").write_bytes(b"\xff\xfe\x00garbage")
    code, report = run_json(capsys, "load", str(folder), "--json")
    assert code == 1
    assert isinstance(report, dict)
    assert report["new"] == 1
    assert {(s["file"], s["line"]) for s in report["skipped"]} == {
        ("broken.txt", None),
        ("icml-2025.txt", 2),
    }


def test_text_summary_names_skipped_lines(
    capsys: pytest.CaptureFixture[str], isolated_env: Path
) -> None:
    page = isolated_env / "iclr-2026.txt"
    page.write_text("A Paper: 摘要。\n坏行\n", encoding="utf-8")
    assert main(["load", str(page)]) == 1
    out = capsys.readouterr().out
    assert "1 new" in out
    assert "skipped iclr-2026.txt:2: no 'Title: summary' separator" in out


def test_missing_path_exits_2(capsys: pytest.CaptureFixture[str], isolated_env: Path) -> None:
    assert main(["load", str(isolated_env / "nope")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_config_error_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAPERBOT_SYNC_GUILD", "not-a-number")
    assert main(["list"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "bot.sync_guild" in err
    assert "Traceback" not in err


def test_python_dash_m_entry_point() -> None:
    result = run_paperbot("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("paperbot ")


def test_a_closed_pipe_is_not_an_error(cli_env: Path) -> None:
    env = {**os.environ, "PAPERBOT_DB": str(cli_env / "pipe.sqlite3")}
    run_paperbot("load", env=env, check=True)
    listing = subprocess.Popen(
        [sys.executable, "-m", "paperbot", "list", "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert listing.stdout is not None
    listing.stdout.readline()
    listing.stdout.close()  # like `| head -1`; the JSON is larger than a pipe buffer
    _, err = listing.communicate()
    assert listing.returncode == 0
    assert b"Traceback" not in err


def test_load_shares_one_heap_from_before_the_database_opens(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memory.one_arena` acts on threads started after it only."""
    calls: list[str] = []
    real_open = App.open

    async def opened(*args: object, **kwargs: object) -> App:
        calls.append("open")
        return await real_open(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(load_command, "one_arena", lambda: calls.append("one_arena"))
    monkeypatch.setattr(App, "open", opened)
    code, _ = run_json(capsys, "load", "--json")
    assert code == 0
    assert calls == ["one_arena", "open"]
