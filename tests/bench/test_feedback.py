"""`paperbot bench feedback`: both arms reported per day, the promises counted.

No thresholds on precision (the bench reports it); the run must count no
re-picked 👎'd paper or near-duplicate, which is a promise, not a figure.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from paperbot.cli import main
from tests.support.app import REPO


def test_small_run_reports_both_arms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERBOT_CONFIG", str(REPO / "config" / "paperbot.toml"))
    monkeypatch.setenv("PAPERBOT_DB", str(tmp_path / "unused.sqlite3"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["bench", "feedback", "--readers", "6", "--days", "3", "--json"])
    assert code == 0
    data = json.loads(out.getvalue())
    assert data["readers"] == 6
    for day in (1, 3):
        for arm in ("learning", "no_learning"):
            assert 0.0 <= data[f"precision_day_{day}_{arm}"] <= 1.0
    assert "precision_day_7_learning" not in data  # past --days
    assert data["disliked_or_near_duplicate_repicked"] == 0
