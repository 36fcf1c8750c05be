"""Shards: which servers a process owns, and how it is configured."""

from __future__ import annotations

import argparse

import pytest

from paperbot.cli.run import with_shards
from paperbot.config import ConfigError, load_settings
from paperbot.core.shards import ShardSet, parse_shard_ids, shard_of


@pytest.mark.parametrize(
    ("guild_id", "count", "shard"),
    [
        (0, 1, 0),
        (1 << 22, 4, 1),
        (5 << 22, 4, 1),
        ((7 << 22) + 12345, 4, 3),
        (81384788765712384, 2, 0),
    ],
)
def test_shard_of_is_discords_formula(guild_id: int, count: int, shard: int) -> None:
    assert shard_of(guild_id, count) == shard


@pytest.mark.parametrize(
    ("text", "ids"), [("0", (0,)), ("0,1", (0, 1)), ("0-3", (0, 1, 2, 3)), ("4, 6-7", (4, 6, 7))]
)
def test_shard_lists_parse(text: str, ids: tuple[int, ...]) -> None:
    assert parse_shard_ids(text) == ids


@pytest.mark.parametrize("text", ["", "a", "1-", "-1", "1,,2"])
def test_bad_shard_lists_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a shard number"):
        parse_shard_ids(text)


def test_a_process_owns_only_its_shards_servers() -> None:
    mine = ShardSet((0, 1), 4)
    guilds = [n << 22 for n in range(8)]
    assert [g for g in guilds if mine.owns(g)] == [0, 1 << 22, 4 << 22, 5 << 22]
    assert ShardSet().owns(3 << 22)


@pytest.mark.parametrize(
    ("ids", "count", "reason"),
    [
        ((4,), 4, r"not in 0\.\.3"),
        ((), 2, "at least one"),
        ((1, 1), 2, "twice"),
        ((0,), 0, "at least 1"),
    ],
)
def test_impossible_shard_sets_say_why(ids: tuple[int, ...], count: int, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        ShardSet(ids, count)


def test_shards_from_the_environment() -> None:
    settings = load_settings({"PAPERBOT_SHARDS": "2-3", "PAPERBOT_SHARD_COUNT": "4"})
    assert settings.bot.shard_set == ShardSet((2, 3), 4)


def test_shards_without_a_count_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"bot\.shards and bot\.shard_count"):
        load_settings({"PAPERBOT_SHARDS": "1"})


def test_postgres_url_selects_postgresql() -> None:
    settings = load_settings({"PAPERBOT_DB": "postgresql://bot@db:5432/paperbot"})
    assert settings.database.target == "postgresql://bot@db:5432/paperbot"
    local = load_settings({"PAPERBOT_DB": "sqlite:///tmp/x.sqlite3"})
    assert str(local.database.target) == "tmp/x.sqlite3"


def test_run_flags_override_the_settings() -> None:
    settings = load_settings({})
    args = argparse.Namespace(shards="0,1", shard_count=4)
    assert with_shards(args, settings).bot.shard_set == ShardSet((0, 1), 4)
    with pytest.raises(ConfigError, match=r"not in 0\.\.1"):
        with_shards(argparse.Namespace(shards="3", shard_count=2), settings)
