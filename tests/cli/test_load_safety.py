"""`paperbot load`: --allow-shrink, exit codes that describe the corpus, notes."""

from __future__ import annotations

import json
import signal
import sqlite3
from pathlib import Path

import pytest

from paperbot.cli import main
from tests.support.corpus import TITLES, page
from tests.support.process import run_python


@pytest.fixture
def folder(cli_env: Path) -> Path:
    path = cli_env / "corpus"
    path.mkdir()
    (path / "icml-2025.txt").write_text(page(*TITLES), encoding="utf-8")
    return path


def load(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    code = main(["load", "--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def test_an_emptied_page_exits_1_until_allowed(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert load(capsys, str(folder))[0] == 0
    (folder / "icml-2025.txt").write_text("", encoding="utf-8")
    code, report = load(capsys, str(folder))
    assert code == 1
    assert report["removed"] == 0
    assert "--allow-shrink" in json.dumps(report["skipped"])
    assert main(["load", str(folder)]) == 1
    assert "shrinks from 4 papers to 0" in capsys.readouterr().out
    code, report = load(capsys, str(folder), "--allow-shrink")
    assert code == 0
    assert report["removed"] == 4


def test_an_unchanged_bad_page_exits_1_every_time(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "icml-2025.txt").write_text(page(*TITLES) + "没有分隔符的一行\n", encoding="utf-8")
    assert [load(capsys, str(folder))[0] for _ in range(3)] == [1, 1, 1]


def test_a_page_from_elsewhere_is_named_in_the_summary(
    folder: Path, cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["load", str(folder)]) == 0
    other = cli_env / "elsewhere"
    other.mkdir()
    (other / "icml-2025.txt").write_text(page(*TITLES, "Epsilon Paper"), encoding="utf-8")
    capsys.readouterr()
    assert main(["load", str(other)]) == 0
    out = capsys.readouterr().out
    assert f"replacing icml-2025.txt loaded from {(folder / 'icml-2025.txt').resolve()}" in out


INTERRUPTED_LOAD = """
import os, signal, sys
from paperbot.cli import main
from paperbot.storage import papers

real_row, rows = papers._row, []

def row_then_ctrl_c(record):
    rows.append(record)
    if len(rows) == 2:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C in the middle of the write
    return real_row(record)

papers._row = row_then_ctrl_c
sys.exit(main(["load", sys.argv[1]]))
"""


def test_ctrl_c_during_load_rolls_back_and_exits_130(folder: Path, cli_env: Path) -> None:
    (folder / "neurips-2025.txt").write_text(
        page(*(f"Paper {i}" for i in range(3000))), encoding="utf-8"
    )
    result = run_python(
        "-c",
        INTERRUPTED_LOAD,
        folder,
        # A child of a non-interactive shell may inherit SIGINT ignored: restore Ctrl-C.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert result.returncode == 130, result.stderr
    assert result.stderr.strip() == "paperbot: interrupted"
    conn = sqlite3.connect(cli_env / "cli.sqlite3")
    assert conn.execute("SELECT count(*) FROM papers").fetchone() == (0,)
    conn.close()
