"""A damaged database file: one line naming it and the way back, exit 2; `paperbot doctor`."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from paperbot.cli import main
from paperbot.storage.db import CorruptDatabase, Database
from tests.support.process import run_paperbot

PAGE_SIZE = 4096


@pytest.fixture
def loaded_file(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The CLI's database with the shipped corpus, closed (WAL checkpointed)."""
    assert main(["load"]) == 0
    capsys.readouterr()
    path = cli_env / "cli.sqlite3"
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
    return path


def damage_middle(path: Path) -> None:
    """Overwrite a few pages in the middle of the file with garbage."""
    pages = path.stat().st_size // PAGE_SIZE
    assert pages > 8, pages
    with path.open("r+b") as file:
        file.seek(pages // 2 * PAGE_SIZE)
        file.write(bytes(range(256)) * (3 * PAGE_SIZE // 256))


def damage_header(path: Path) -> None:
    with path.open("r+b") as file:
        file.write(b"\x00not a database at all" * 200)


def one_line_naming(path: Path, err: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(path) in lines[0], lines[0]
    assert "backup" in lines[0], lines[0]
    assert "Traceback" not in err


@pytest.mark.parametrize("argv", [["list"], ["topics"], ["load"], ["search", "attention"]])
@pytest.mark.parametrize("damage", [damage_middle, damage_header])
def test_every_command_refuses_a_damaged_file_with_one_line(
    loaded_file: Path, capsys: pytest.CaptureFixture[str], argv: list[str], damage: object
) -> None:
    assert callable(damage)
    damage(loaded_file)
    assert main(argv) == 2
    one_line_naming(loaded_file, capsys.readouterr().err)


async def test_open_raises_corrupt_database(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite3"
    path.write_bytes(b"garbage" * 4096)
    with pytest.raises(CorruptDatabase, match="backup"):
        await Database.open(path)


def test_run_refuses_a_damaged_file_with_one_line(loaded_file: Path) -> None:
    damage_middle(loaded_file)
    env = {**os.environ, "DISCORD_TOKEN": "x" * 59, "PAPERBOT_DISCORD_API": "http://127.0.0.1:9"}
    result = run_paperbot("run", env=env, timeout=60)
    assert result.returncode == 2, result.stderr
    assert str(loaded_file) in result.stderr
    assert "backup" in result.stderr
    assert "Traceback" not in result.stderr


def doctor(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    code = main(["doctor", "--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.usefixtures("loaded_file")
def test_doctor_on_a_healthy_database(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = doctor(capsys)
    assert code == 0, report
    assert report["problems"] == []
    assert report["integrity"] == "ok"
    assert report["schema_version"] == report["code_schema_version"]
    assert main(["doctor"]) == 0
    assert "healthy" in capsys.readouterr().out


def test_doctor_finds_damage_in_the_middle(
    loaded_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damage_middle(loaded_file)
    code, report = doctor(capsys)
    assert code == 1
    assert report["integrity"] != "ok"
    assert report["problems"]


def test_doctor_cannot_open_garbage(loaded_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    damage_header(loaded_file)
    assert main(["doctor"]) == 2
    one_line_naming(loaded_file, capsys.readouterr().err)


def test_doctor_names_orphan_history_and_a_wrong_index(
    loaded_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conn = sqlite3.connect(loaded_file)
    conn.execute(
        "INSERT INTO digest_posts (id, guild_id, channel_id, kind, local_date, nonce, header,"
        " paper_keys, message, state, claimed_at, deadline)"
        " VALUES (1, 7, 70, 'manual', '2026-11-30', 'n', 'h', '[\"no such paper\"]', '{}',"
        " 'confirmed', 'x', 'y')"
    )
    conn.execute(
        "INSERT INTO digest_posted (channel_id, paper_key, post_id) VALUES (70, 'no such paper', 1)"
    )
    # `paperbot load` stored an index: replace it with one built from a
    # corpus version that never existed.
    conn.execute("DELETE FROM search_index")
    conn.execute("INSERT INTO search_index VALUES ('x', 999, 1, '<f4', '[0]', x'')")
    conn.commit()
    conn.close()
    code, report = doctor(capsys)
    assert code == 1
    text = json.dumps(report["problems"])
    assert "no such paper" in text
    assert "search index" in text
