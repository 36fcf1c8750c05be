"""Slash-command invocations built as Discord builds them from the synced commands.

Discord's client only sends what a command's schema allows (option types,
choices, limits, required options, resolved channels and users) and only offers
a command where `contexts` / `default_member_permissions` allow it; these
functions refuse the rest the same way.
"""

from __future__ import annotations

from typing import Any

import discord

from tests.fake_discord.constants import (
    SUBCOMMAND_TYPES,
    CommandType,
    InteractionContext,
    OptionType,
)
from tests.fake_discord.models import FakeChannel, FakeGuild, FakeUser


class CommandUnavailable(Exception):
    """Discord would not offer this command to this user here (so it can't be invoked)."""


def command_data(
    commands: dict[str, dict[str, Any]],
    command: str,
    guild: FakeGuild | None,
    user: FakeUser,
    options: dict[str, Any],
    *,
    focused: str | None,
) -> dict[str, Any]:
    name, *path = command.split()
    registered = commands.get(name)
    if registered is None:
        raise CommandUnavailable(f"/{name} is not synced for this guild/DM")
    _check_visible(registered, guild, user)
    data: dict[str, Any] = {"id": registered["id"], "name": name, "type": CommandType.CHAT_INPUT}
    if guild is not None and registered.get("guild_id"):
        data["guild_id"] = registered["guild_id"]
    container, schema_options = _descend(data, registered.get("options") or [], path)
    if any(o["type"] in SUBCOMMAND_TYPES for o in schema_options):
        raise ValueError(f"/{command} needs a subcommand")
    resolved: dict[str, dict[str, Any]] = {}
    values = []
    for key, value in options.items():
        option = next((o for o in schema_options if o["name"] == key), None)
        if option is None:
            raise ValueError(f"/{command} has no option {key!r}")
        values.append(_option_value(option, value, resolved, focused == key, user))
    _check_required(command, schema_options, options, focused)
    container["options"] = values
    if resolved:
        data["resolved"] = resolved
    return data


def _check_visible(command: dict[str, Any], guild: FakeGuild | None, user: FakeUser) -> None:
    if guild is None:
        contexts = command.get("contexts")
        allowed = (
            InteractionContext.BOT_DM in contexts
            if contexts is not None
            else command.get("dm_permission", True)
        )
        if not allowed:
            raise CommandUnavailable(f"/{command['name']} is not offered in DMs")
        return
    required = command.get("default_member_permissions")
    if required is None:
        return
    needed = discord.Permissions(int(required))
    has = user.permissions
    if not (has.administrator or needed.is_subset(has)):
        raise CommandUnavailable(
            f"/{command['name']} needs {needed.value} (default_member_permissions)"
        )


def _option_value(
    option: dict[str, Any],
    value: Any,
    resolved: dict[str, dict[str, Any]],
    is_focused: bool,
    user: FakeUser,
) -> dict[str, Any]:
    kind = option["type"]
    entry: dict[str, Any] = {"name": option["name"], "type": kind}
    if is_focused:
        # While typing, Discord sends the raw text for any option type.
        return entry | {"value": str(value), "focused": True}
    if kind == OptionType.STRING:
        _check_string(option, value)
    elif kind in (OptionType.INTEGER, OptionType.NUMBER):
        _check_number(option, value)
    elif kind == OptionType.BOOLEAN:
        if not isinstance(value, bool):
            raise ValueError(f"{option['name']}: needs a bool")
    elif kind == OptionType.CHANNEL:
        value = _resolve_channel(option, value, resolved, user)
    elif kind == OptionType.USER:
        value = _resolve_user(option, value, resolved)
    choices = option.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise ValueError(f"{option['name']}: Discord only sends one of the choices")
    return entry | {"value": value}


def _descend(
    data: dict[str, Any], schema_options: list[dict[str, Any]], path: list[str]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Nest one option level per subcommand (group) in `path`; return the
    innermost container and the schema of the options it takes."""
    container = data
    for sub in path:
        found = next(
            (o for o in schema_options if o["name"] == sub and o["type"] in SUBCOMMAND_TYPES), None
        )
        if found is None:
            raise CommandUnavailable(f"/{data['name']} has no subcommand {sub!r}")
        inner: dict[str, Any] = {"name": sub, "type": found["type"], "options": []}
        container.setdefault("options", []).append(inner)
        container, schema_options = inner, found.get("options") or []
    return container, schema_options


def _check_required(
    command: str,
    schema_options: list[dict[str, Any]],
    options: dict[str, Any],
    focused: str | None,
) -> None:
    if focused is None:
        missing = [
            o["name"] for o in schema_options if o.get("required") and o["name"] not in options
        ]
        if missing:
            raise ValueError(f"/{command}: Discord requires {missing}")
    elif focused not in options:
        raise ValueError(f"focused option {focused!r} needs a (partial) value")


def _check_string(option: dict[str, Any], value: Any) -> None:
    if not isinstance(value, str):
        raise ValueError(f"{option['name']}: Discord sends strings for STRING options")
    low, high = option.get("min_length", 0), option.get("max_length", 6000)
    if not low <= len(value) <= high:
        raise ValueError(f"{option['name']}: Discord's client enforces {low}-{high} chars")


def _check_number(option: dict[str, Any], value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{option['name']}: needs a number")
    low, high = option.get("min_value"), option.get("max_value")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{option['name']}: Discord's client enforces {low}..{high}")


def _resolve_channel(
    option: dict[str, Any], value: Any, resolved: dict[str, dict[str, Any]], user: FakeUser
) -> str:
    target = value if isinstance(value, FakeChannel) else None
    if target is None:
        raise ValueError(f"{option['name']}: pass a FakeChannel")
    allowed_types = option.get("channel_types")
    if allowed_types and target.type not in allowed_types:
        raise ValueError(f"{option['name']}: Discord only offers {allowed_types}")
    # The resolved channel carries the invoking member's permissions in it.
    resolved.setdefault("channels", {})[str(target.id)] = target.resolved_payload(user.permissions)
    return str(target.id)


def _resolve_user(option: dict[str, Any], value: Any, resolved: dict[str, dict[str, Any]]) -> str:
    if not isinstance(value, FakeUser):
        raise ValueError(f"{option['name']}: pass a FakeUser")
    resolved.setdefault("users", {})[str(value.id)] = value.payload()
    member = value.member_payload(permissions=value.permissions)
    member.pop("user")
    resolved.setdefault("members", {})[str(value.id)] = member
    return str(value.id)
