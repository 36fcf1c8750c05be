"""Every command, as a server admin and as a plain member (and from a DM).

The matrix must name every command the bot syncs: a new command fails
`test_the_matrix_covers_every_synced_command` until its row is added.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.fake_discord import CommandUnavailable, InteractionResult, button, message_text
from tests.support.e2e import E2E

ERROR_ID = re.compile(r"(?:error id|错误编号) `[0-9a-f]{8}`")
CHANNEL = object()  # stands for the guild's #papers channel


@dataclass(frozen=True)
class Row:
    options: dict[str, Any] = field(default_factory=dict)
    #: A member without Manage Server is refused with this message.
    admin_only: bool = False
    #: Offered in direct messages with the bot.
    in_dms: bool = False


MATRIX: dict[str, Row] = {
    "about": Row(in_dms=True),
    "search": Row({"query": "diffusion"}, in_dms=True),
    "subscribe": Row({"topic": "diffusion"}),
    "unsubscribe": Row({"topic": "diffusion"}),
    "subscriptions": Row(),
    "digest setup": Row({"channel": CHANNEL, "time": "08:00"}, admin_only=True),
    "digest now": Row(admin_only=True),
    "digest preview": Row(),
    "digest off": Row(admin_only=True),
    "similar": Row({"paper": "diffusion"}, in_dms=True),
    "mute": Row({"topic": "diffusion"}),
    "unmute": Row({"topic": "diffusion"}),
    "feedback show": Row(),
    "feedback reset": Row(),
    "digest history": Row(),
    "digest me": Row({"time": "08:00"}),
    "saved list": Row(),
    "saved export": Row({"format": "bibtex"}),
    "mydata show": Row(),
    "mydata export": Row(),
    "mydata delete": Row(),
}


def synced_paths(commands: list[dict[str, Any]]) -> set[str]:
    paths = set()
    for command in commands:
        subs = [o for o in command.get("options") or [] if o["type"] == 1]
        paths |= {f"{command['name']} {s['name']}" for s in subs} or {command["name"]}
    return paths


def _options(e2e: E2E, row: Row) -> dict[str, Any]:
    return {k: (e2e.channel if v is CHANNEL else v) for k, v in row.options.items()}


def assert_answered_cleanly(result: InteractionResult) -> None:
    assert result.callback_type in (4, 5), result
    text = result.text()
    assert text, "the bot must say something"
    assert not ERROR_ID.search(text), f"a bug, not an answer: {text}"
    assert "Traceback" not in text


def _present(e2e: E2E, command: str) -> None:
    if command not in synced_paths(e2e.fake.global_commands):
        pytest.fail(f"/{command} is in the matrix but the bot does not sync it")


async def test_the_matrix_covers_every_synced_command(e2e: E2E) -> None:
    assert synced_paths(e2e.fake.global_commands) == set(MATRIX)


@pytest.mark.parametrize("command", sorted(MATRIX))
async def test_as_admin(e2e: E2E, command: str) -> None:
    _present(e2e, command)
    row = MATRIX[command]
    result = await e2e.slash(command, user=e2e.admin, options=_options(e2e, row))
    assert_answered_cleanly(result)
    assert "You need the" not in result.text()


@pytest.mark.parametrize("command", sorted(MATRIX))
async def test_as_member(e2e: E2E, command: str) -> None:
    _present(e2e, command)
    row = MATRIX[command]
    result = await e2e.slash(command, user=e2e.member, options=_options(e2e, row))
    assert_answered_cleanly(result)
    refused = "You need the Manage Server permission to use this command." in result.text()
    assert refused is row.admin_only
    if row.admin_only:
        assert result.ephemeral


@pytest.mark.parametrize("command", sorted(MATRIX))
async def test_from_a_dm(e2e: E2E, command: str) -> None:
    _present(e2e, command)
    row = MATRIX[command]
    if not row.in_dms:
        with pytest.raises(CommandUnavailable):
            await e2e.dm(command, options=_options(e2e, row))
        return
    assert_answered_cleanly(await e2e.dm(command, options=_options(e2e, row)))


async def test_only_the_searcher_turns_the_pages(e2e: E2E) -> None:
    result = await e2e.slash("search", query="diffusion")
    message = result.message
    assert message is not None
    assert not result.ephemeral
    assert button(message, "Previous")["disabled"] is True
    first_page = message_text(message)
    counter = button(message, "/")["label"]
    assert counter.startswith("1/")
    assert int(counter.split("/")[1]) >= 2

    turned = await e2e.click(message, button(message, "Next")["custom_id"])
    assert turned.callback_type == 7  # the message itself is edited
    assert button(message, "/")["label"].startswith("2/")
    assert message_text(message) != first_page
    assert button(message, "Previous")["disabled"] is False

    stranger = await e2e.click(message, button(message, "Next")["custom_id"], user=e2e.admin)
    assert stranger.callback_type == 4
    assert stranger.ephemeral
    assert "Only the person who ran this command" in stranger.content
    assert button(message, "/")["label"].startswith("2/"), "a stranger must not turn the page"

    back = await e2e.click(message, button(message, "Previous")["custom_id"])
    assert back.callback_type == 7
    assert message_text(message) == first_page


async def test_the_last_page_disables_next(e2e: E2E) -> None:
    result = await e2e.slash("search", query="diffusion")
    message = result.message
    assert message is not None
    total = int(button(message, "/")["label"].split("/")[1])
    for _ in range(total - 1):
        await e2e.click(message, button(message, "Next")["custom_id"])
    assert button(message, "/")["label"] == f"{total}/{total}"
    assert button(message, "Next")["disabled"] is True
    with pytest.raises(ValueError, match="disabled"):
        await e2e.click(message, button(message, "Next")["custom_id"])


def autocomplete_options(commands: list[dict[str, Any]]) -> list[tuple[str, str]]:
    found = []
    for command in commands:
        subs = [o for o in command.get("options") or [] if o["type"] == 1]
        for path, options in [
            (f"{command['name']} {s['name']}", s.get("options") or []) for s in subs
        ] or [(command["name"], command.get("options") or [])]:
            found += [(path, o["name"]) for o in options if o.get("autocomplete")]
    return found


@pytest.mark.parametrize("typed", ["", "d", "扩散", "x" * 100])
async def test_every_autocomplete_answers_within_limits(e2e: E2E, typed: str) -> None:
    """Each autocompleted option, while typing anything (the fake validates the choices)."""
    targets = autocomplete_options(e2e.fake.global_commands)
    assert targets, "expected autocompleted options (topics, timezones, venues)"
    for path, option in targets:
        user = e2e.admin if MATRIX[path].admin_only else e2e.member
        required = {k: v for k, v in _options(e2e, MATRIX[path]).items() if k != option}
        choices = await e2e.autocomplete(
            path, focused=option, user=user, options={**required, option: typed}
        )
        assert isinstance(choices, list)
        assert len(choices) <= 25
