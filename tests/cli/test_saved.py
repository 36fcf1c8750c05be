"""`paperbot saved`: a reader's saved papers as BibTeX, Markdown, CSV or JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bibtexparser.entrypoint import parse_string

from paperbot.cli import main
from tests.support.user_data import GUILD, USER, seed


@pytest.fixture(autouse=True)
def isolated_env(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["load"]) == 0
    capsys.readouterr()
    return cli_env


def test_saved_prints_bibtex_a_parser_reads(capsys: pytest.CaptureFixture[str]) -> None:
    seed()
    assert main(["saved", "--guild", str(GUILD), "--user", str(USER)]) == 0
    out, err = capsys.readouterr()
    library = parse_string(out)
    assert library.failed_blocks == []
    assert len(library.entries) == 3
    assert "3 saved papers (paperbot-saved-" in err


@pytest.mark.parametrize("fmt", ["markdown", "csv", "json"])
def test_saved_other_formats(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    seed()
    assert main(["saved", "--guild", str(GUILD), "--user", str(USER), "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert not out.startswith("\ufeff")
    if fmt == "json":
        assert len(json.loads(out)) == 3


def test_saved_needs_guild_and_user(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["saved", "--guild", str(GUILD)])
    assert exit_info.value.code == 2
    assert "--user" in capsys.readouterr().err
