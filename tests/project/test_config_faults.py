"""Config faults from issue 13: strict types, finite bounds, accurate origins, limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperbot.config import ConfigError, load_settings


def write_config(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "paperbot.toml"
    path.write_text(text, encoding="utf-8")
    (tmp_path / "topics.toml").write_text("", encoding="utf-8")
    return {"PAPERBOT_CONFIG": str(path)}


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ("[search]\npage_size = true\n", "search.page_size"),
        ("[search]\npage_size = '7'\n", "search.page_size"),
        ("[search]\npage_size = 7.0\n", "search.page_size"),
        ("[search]\ncooldown_seconds = inf\n", "search.cooldown_seconds"),
        ("[search]\ncooldown_seconds = nan\n", "search.cooldown_seconds"),
        ("[search]\ncooldown_seconds = 1e9\n", "search.cooldown_seconds"),
        ("[search]\ncooldown_seconds = '10'\n", "search.cooldown_seconds"),
        ("[search]\ncooldown_uses = 100000\n", "search.cooldown_uses"),
        ("[digest]\ndefault_count = false\n", "digest.default_count"),
        ("[bot]\nshutdown_grace_seconds = nan\n", "bot.shutdown_grace_seconds"),
        ("[bot]\nshutdown_grace_seconds = true\n", "bot.shutdown_grace_seconds"),
        ("[bot]\nsync_guild = 99999999999999999999999\n", "bot.sync_guild"),
        ("[bot]\nsync_guild = '123'\n", "bot.sync_guild"),
        ("[corpus]\nmax_file_mb = 0\n", "corpus.max_file_mb"),
        ("[corpus]\nmax_file_mb = inf\n", "corpus.max_file_mb"),
        ("[corpus]\nmax_title_chars = true\n", "corpus.max_title_chars"),
        ("[corpus]\nmax_entries_per_file = -1\n", "corpus.max_entries_per_file"),
    ],
)
def test_loose_values_are_refused(tmp_path: Path, toml: str, key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(write_config(tmp_path, toml))
    assert str(caught.value).startswith(f"{key}:")


@pytest.mark.parametrize(
    ("toml", "check"),
    [
        ("[search]\ncooldown_seconds = 10\n", lambda s: s.search.cooldown_seconds == 10.0),
        ("[search]\ncooldown_seconds = 2.5\n", lambda s: s.search.cooldown_seconds == 2.5),
        ("[corpus]\nmax_file_mb = 0.5\n", lambda s: s.corpus.max_file_mb == 0.5),
        ("[corpus]\nmax_title_chars = 400\n", lambda s: s.corpus.max_title_chars == 400),
    ],
)
def test_sane_values_are_accepted(tmp_path: Path, toml: str, check: object) -> None:
    settings = load_settings(write_config(tmp_path, toml))
    assert callable(check)
    assert check(settings)


def test_sync_guild_from_environment_is_a_snowflake(tmp_path: Path) -> None:
    env = write_config(tmp_path, "") | {"PAPERBOT_SYNC_GUILD": "123456789012345678"}
    assert load_settings(env).bot.sync_guild == 123456789012345678
    env["PAPERBOT_SYNC_GUILD"] = "99999999999999999999999"
    with pytest.raises(ConfigError, match=r"^bot.sync_guild: .*\(from PAPERBOT_SYNC_GUILD\)"):
        load_settings(env)


def test_origin_names_the_variable_only_when_it_is_set(tmp_path: Path) -> None:
    env = write_config(tmp_path, "[corpus]\npath = 'nope'\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(env)
    assert "PAPERBOT_CORPUS" not in str(caught.value)
    assert str(tmp_path / "paperbot.toml") in str(caught.value)
    env["PAPERBOT_CORPUS"] = str(tmp_path / "also-nope")
    with pytest.raises(ConfigError, match=r"\(from PAPERBOT_CORPUS\)"):
        load_settings(env)


def test_corpus_path_that_is_a_file_says_so(tmp_path: Path) -> None:
    page = tmp_path / "page.txt"
    page.write_text("x", encoding="utf-8")
    env = write_config(tmp_path, "") | {"PAPERBOT_CORPUS": str(page)}
    with pytest.raises(ConfigError) as caught:
        load_settings(env)
    assert "is a file, not a folder" in str(caught.value)
    assert "does not exist" not in str(caught.value)
