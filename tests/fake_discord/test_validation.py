"""The fake Discord's payload validation catches what real Discord rejects."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fake_discord.validation import spec_validator, valid_command_name

OK_MENTIONS = {"parse": [], "replied_user": False}


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("search", True),
        ("digest-setup", True),
        ("订阅", True),
        ("Search", False),
        ("two words", False),
        ("", False),
        ("x" * 33, False),
        ("emoji😀", False),
    ],
)
def test_command_name_pattern(name: str, valid: bool) -> None:
    assert valid_command_name(name) is valid


CALLBACK = "/interactions/1/token/callback"


@pytest.mark.parametrize(
    ("method", "path", "body", "problem"),
    [
        ("POST", CALLBACK, {"type": 4, "data": {"content": "x" * 2001}}, "maxLength=2000"),
        ("POST", CALLBACK, {"type": 4, "data": {"embeds": [{"title": "t" * 257}]}}, "title"),
        (
            "POST",
            CALLBACK,
            {
                "type": 4,
                "data": {
                    "embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}],
                    "allowed_mentions": OK_MENTIONS,
                },
            },
            "6001 characters",
        ),
        (
            "POST",
            CALLBACK,
            {"type": 8, "data": {"choices": [{"name": "n", "value": "v"}] * 26}},
            "maxItems=25",
        ),
        (
            "POST",
            CALLBACK,
            {"type": 8, "data": {"choices": [{"name": "n", "value": "v" * 101}]}},
            "101 characters",
        ),
        ("POST", "/webhooks/1/token", {"content": "hi"}, "without allowed_mentions"),
        (
            "POST",
            "/channels/1/messages",
            {"content": "hi", "allowed_mentions": {"parse": ["everyone"]}},
            "could ping",
        ),
        (
            "PUT",
            "/applications/1/commands",
            [{"name": "Search", "description": "d", "type": 1}],
            "pattern",
        ),
        (
            "PUT",
            "/applications/1/commands",
            [{"name": "search", "type": 1, "description": ""}],
            "need a description",
        ),
        ("GET", "/no/such/route", None, "no such endpoint"),
    ],
)
def test_invalid_bodies_are_reported(method: str, path: str, body: Any, problem: str) -> None:
    problems = spec_validator().validate(method, path, body)
    assert problems, "expected a problem"
    assert any(problem in p for p in problems), problems


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        (
            "PUT",
            "/applications/1/guilds/2/commands",
            [
                {
                    "name": "digest",
                    "description": "Daily digest",
                    "description_localizations": {"zh-CN": "每日摘要"},
                    "type": 1,
                    # discord.py sends permissions as a numeric string.
                    "default_member_permissions": "32",
                    "options": [
                        {"type": 1, "name": "off", "description": "Stop", "options": []},
                    ],
                }
            ],
        ),
        (
            "POST",
            CALLBACK,
            {"type": 4, "data": {"content": "hi", "flags": 64, "allowed_mentions": OK_MENTIONS}},
        ),
        ("POST", CALLBACK, {"type": 5, "data": {"flags": 64}}),
        ("POST", CALLBACK, {"type": 8, "data": {"choices": [{"name": "扩散模型", "value": "d"}]}}),
        (
            "PATCH",
            "/webhooks/1/token/messages/@original",
            {"content": "x", "allowed_mentions": OK_MENTIONS},
        ),
        ("GET", "/users/@me", None),
    ],
)
def test_valid_bodies_pass(method: str, path: str, body: Any) -> None:
    assert spec_validator().validate(method, path, body) == []
