"""The built wheel, installed into a fresh venv, works from an empty folder:
the vocabulary and an example config ship inside it, and the database goes to
the user's data folder, not into the folder the command runs in."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).parents[2]
UV = [sys.executable, "-m", "uv"]


def run(*argv: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(arg) for arg in argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout}{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built from a clean copy of the sources: a checkout's build/ may hold stale files."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, source / name)
    shutil.copytree(
        REPO / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    run(*UV, "build", "--wheel", "--quiet", "--out-dir", root / "dist", source)
    (built,) = (root / "dist").glob("paperbot-*.whl")
    return built


def test_wheel_holds_vocabulary_example_config_and_license(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {
        "paperbot/data/topics.toml",
        "paperbot/data/paperbot.example.toml",
        "paperbot/data/english_frequency.tsv",  # the search's general English word weights
        "paperbot/data/english_chinese.tsv",  # the search's English -> Chinese dictionary
        "paperbot/data/chinese_frequency.tsv",  # the search's everyday Chinese words
    } <= names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    metadata = next(name for name in names if name.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "License-Expression: MIT" in text
    assert "License-File: LICENSE" in text


def test_installed_wheel_runs_from_an_empty_folder(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    run(*UV, "venv", "--quiet", "--python", sys.executable, venv)
    run(*UV, "pip", "install", "--quiet", "--python", venv / "bin" / "python", wheel)
    home, empty = tmp_path / "home", tmp_path / "empty"
    empty.mkdir()
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("PAPERBOT_", "XDG_")) and name != "DISCORD_TOKEN"
    }
    env |= {"HOME": str(home), "XDG_DATA_HOME": str(home / "data")}
    env["XDG_CONFIG_HOME"] = str(home / "config")
    paperbot = venv / "bin" / "paperbot"

    assert "292 new" in run(paperbot, "load", cwd=empty, env=env)
    assert "Speculative" in run(paperbot, "search", "speculative decoding", cwd=empty, env=env)
    assert "Scaling laws" in run(paperbot, "topics", cwd=empty, env=env)
    preview = run(paperbot, "digest", "preview", "--topics", "scaling laws", cwd=empty, env=env)
    assert preview.strip()

    assert list(empty.iterdir()) == []
    assert (home / "data" / "paperbot" / "paperbot.sqlite3").is_file()
