"""Settings: the TOML file, environment overrides, and one clear line per bad value."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperbot.config import BUNDLED_CORPUS, ConfigError, load_settings, token

REPO_CONFIG = Path(__file__).parents[2] / "config" / "paperbot.toml"


def write_config(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "paperbot.toml"
    path.write_text(text, encoding="utf-8")
    (tmp_path / "topics.toml").write_text("", encoding="utf-8")
    return {"PAPERBOT_CONFIG": str(path)}


def test_shipped_config_is_valid() -> None:
    settings = load_settings({"PAPERBOT_CONFIG": str(REPO_CONFIG)})
    assert (settings.feedback.kept_servers, settings.feedback.kept_bytes) == (64, 512 * 2**20)
    assert settings.corpus.path == BUNDLED_CORPUS
    assert settings.database.path == REPO_CONFIG.parent / "../var/paperbot.sqlite3"


def test_environment_overrides_file(tmp_path: Path) -> None:
    env = write_config(tmp_path, '[topics]\npath = "topics.toml"\n[bot]\nlog_level = "INFO"\n')
    env |= {
        "PAPERBOT_DB": str(tmp_path / "x.sqlite3"),
        "PAPERBOT_CORPUS": str(tmp_path),
        "PAPERBOT_SYNC_GUILD": "1234",
        "PAPERBOT_LOG_LEVEL": "DEBUG",
        "DISCORD_TOKEN": "secret-token",
    }
    settings = load_settings(env)
    assert settings.database.path == tmp_path / "x.sqlite3"
    assert settings.corpus.path == tmp_path
    assert settings.bot.sync_guild == 1234
    assert settings.bot.log_level == "DEBUG"
    assert token(settings) == "secret-token"
    assert "secret-token" not in repr(settings)


@pytest.mark.parametrize(
    ("toml", "env", "message"),
    [
        ("[search]\npage_sise = 5\n", {}, "search.page_sise: unknown setting"),
        ("[search]\npage_size = 'five'\n", {}, "search.page_size:"),
        ("[search]\npage_size = 50\n", {}, "search.page_size:"),
        ("[corpus]\npath = 'missing-folder'\n", {}, "corpus.path: folder"),
        (
            "[digest]\ndefault_timezone = 'Mars/Base'\n",
            {},
            "digest.default_timezone: unknown timezone",
        ),
        ("[feedback]\nkept_servers = 0\n", {}, "feedback.kept_servers:"),
        ("[feedback]\nkept_servers = '64'\n", {}, "feedback.kept_servers:"),
        ("[feedback]\nkept_mb = inf\n", {}, "feedback.kept_mb:"),
        ("[feedback]\nkept_mb = 0\n", {}, "feedback.kept_mb:"),
        ("[bot]\ntoken = 'abc'\n", {}, "bot.token: never put the token"),
        ("[bot\n", {}, "not valid TOML"),
        ("", {"PAPERBOT_SYNC_GUILD": "abc"}, "bot.sync_guild:"),
        ("", {"PAPERBOT_LOG_LEVEL": "LOUD"}, "bot.log_level:"),
        (
            "",
            {"PAPERBOT_CORPUS": "/definitely/not/here"},
            "corpus.path: folder /definitely/not/here",
        ),
    ],
)
def test_bad_values_name_the_key(
    tmp_path: Path, toml: str, env: dict[str, str], message: str
) -> None:
    full_env = write_config(tmp_path, toml) | env
    with pytest.raises(ConfigError) as caught:
        load_settings(full_env)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_missing_explicit_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"PAPERBOT_CONFIG: config file .* does not exist"):
        load_settings({"PAPERBOT_CONFIG": str(tmp_path / "nope.toml")})
