"""`paperbot doctor` with a PostgreSQL URL: one line saying it checks SQLite files."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperbot.cli import main


def test_doctor_on_postgresql_says_what_to_use(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_env.is_dir()
    monkeypatch.setenv("PAPERBOT_DB", "postgresql://bot:secret@db.invalid/paperbot")
    assert main(["doctor"]) == 2
    err = capsys.readouterr().err
    assert "paperbot doctor checks SQLite files" in err
    assert "secret" not in err
    assert len(err.strip().splitlines()) == 1
