"""What an installed paperbot relies on: `paperbot init`, the example config,
where the database goes, and the discord.py check of `paperbot run`."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from paperbot.cli import main
from paperbot.cli import run as run_command
from paperbot.config import (
    BUNDLED_TOPICS,
    EXAMPLE_CONFIG,
    BotSettings,
    CorpusSettings,
    DatabaseSettings,
    DigestSettings,
    FeedbackSettings,
    SearchSettings,
    Settings,
    TopicsSettings,
    _Section,
    default_database,
    load_settings,
)

SECTIONS: dict[str, type[_Section]] = {
    "database": DatabaseSettings,
    "corpus": CorpusSettings,
    "topics": TopicsSettings,
    "search": SearchSettings,
    "digest": DigestSettings,
    "feedback": FeedbackSettings,
    "bot": BotSettings,
}


def commented_keys(text: str) -> dict[str, dict[str, object]]:
    """The `# key = value` lines of each [section], parsed as TOML."""
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for line in text.splitlines():
        if match := re.fullmatch(r"\[(\w+)\]", line):
            current = sections.setdefault(match[1], [])
        elif re.match(r"# \w+ = ", line):
            current.append(line.removeprefix("# "))
    return {name: tomllib.loads("\n".join(lines)) for name, lines in sections.items()}


def test_example_config_mentions_every_setting_and_loads_as_the_defaults() -> None:
    shown = commented_keys(EXAMPLE_CONFIG.read_text(encoding="utf-8"))
    assert set(SECTIONS) == set(Settings.model_fields) - {"config_path"}
    for section, model in SECTIONS.items():
        assert set(model.model_fields) - {"token"} == set(shown[section]), section
        defaults = model().model_dump(exclude={"path", "token"})
        for key, value in defaults.items():
            if value is not None:
                assert shown[section][key] == value, f"{section}.{key}"
    settings = load_settings({"PAPERBOT_CONFIG": str(EXAMPLE_CONFIG)})
    assert settings.topics.path == BUNDLED_TOPICS
    assert settings.search == Settings().search


@pytest.mark.parametrize(
    ("checkout", "expected"),
    [(True, Path("var/paperbot.sqlite3")), (False, Path("data/paperbot/paperbot.sqlite3"))],
)
def test_database_default_depends_on_being_in_a_checkout(
    tmp_path: Path,
    user_folders: Path,
    monkeypatch: pytest.MonkeyPatch,
    checkout: bool,
    expected: Path,
) -> None:
    if checkout:
        (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
        (tmp_path / "src" / "paperbot").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    found = default_database()
    assert found == (expected if checkout else user_folders / expected)
    assert load_settings({}).database.path == found


def test_init_writes_a_config_that_is_then_read(
    tmp_path: Path,
    user_folders: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PAPERBOT_CONFIG", raising=False)
    assert main(["init"]) == 0
    written = user_folders / "config" / "paperbot" / "paperbot.toml"
    assert written.read_text(encoding="utf-8") == EXAMPLE_CONFIG.read_text(encoding="utf-8")
    assert f"wrote {written}" in capsys.readouterr().out

    written.write_text("[search]\npage_size = 7\n", encoding="utf-8")
    assert load_settings({}).search.page_size == 7
    assert main(["init"]) == 1
    assert "already exists" in capsys.readouterr().err
    assert "page_size = 7" in written.read_text(encoding="utf-8")

    written.write_text("[broken\n", encoding="utf-8")
    assert main(["init", "--force"]) == 0
    assert load_settings({}).search.page_size == 5


def test_init_into_a_folder_says_how_to_use_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--dir", str(tmp_path / "conf")]) == 0
    assert (tmp_path / "conf" / "paperbot.toml").is_file()
    assert "PAPERBOT_CONFIG=" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("installed", "refused"),
    [("2.4.0", True), ("2.7.0", True), ("2.7.1", False), ("2.8.0a1", False), ("3.0.0", False)],
)
def test_run_refuses_a_discord_py_without_enforce_nonce(
    monkeypatch: pytest.MonkeyPatch, installed: str, refused: bool
) -> None:
    monkeypatch.setattr("paperbot.cli.run.metadata.version", lambda _name: installed)
    problem = run_command.discord_problem()
    assert (problem is not None) == refused
    if problem:
        assert "enforce_nonce" in problem
        assert "\n" not in problem


@pytest.mark.usefixtures("cli_env")
def test_run_with_an_old_discord_py_exits_2_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("paperbot.cli.run.metadata.version", lambda _name: "2.4.0")
    monkeypatch.setenv("DISCORD_TOKEN", "not-used")
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("paperbot: discord.py 2.4.0 is too old")
