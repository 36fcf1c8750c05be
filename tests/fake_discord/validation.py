"""Request-body validation against Discord's OpenAPI spec, plus the limits it lacks.

`tests/data/openapi.json` is Discord's official OpenAPI 3.1 description
(github.com/discord/discord-api-spec). Each request body the bot sends is
validated with jsonschema Draft 2020-12 against the schema of the matched
operation; `$ref`s resolve through a `referencing` Registry holding the
whole spec. On top of that, `extra_problems` checks what Discord enforces
but the spec does not express (command-name pattern, 6,000 embed characters
per message, autocomplete choices, ...) and the project's own rule that no
message may ping anyone implicitly.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jsonschema import Draft202012Validator, ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SPEC_PATH = Path(__file__).resolve().parents[1] / "data" / "openapi.json"
_SPEC_URI = "urn:discord-openapi"

# Limits Discord enforces that the spec leaves out (or that are cross-field).
CONTENT_LIMIT = 2000
EMBED_TOTAL_LIMIT = 6000
EMBEDS_PER_MESSAGE = 10
CHOICES_LIMIT = 25
CHOICE_TEXT_LIMIT = 100
COMMAND_TOTAL_CHARS = 4000
ACTION_ROWS_LIMIT = 5
BUTTONS_PER_ROW = 5
CUSTOM_ID_LIMIT = 100

# Discord's pattern is ^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$, lower case
# where the script has case; `re` has no \p{}, so check character categories.
_NAME_EXTRA = frozenset("-_")


def valid_command_name(name: str) -> bool:
    if not 1 <= len(name) <= 32 or name != name.lower():
        return False
    for char in name:
        category = unicodedata.category(char)
        if char in _NAME_EXTRA or category[0] in "LN":
            continue
        # Devanagari and Thai combining marks are allowed too.
        if category[0] == "M" and unicodedata.name(char, "").startswith(("DEVANAGARI", "THAI")):
            continue
        return False
    return True


@dataclass(frozen=True)
class Operation:
    template: str
    method: str
    body_schema: dict[str, Any] | None


class SpecValidator:
    """Matches a request to its operation in the spec and validates its body."""

    def __init__(self, spec_path: Path = SPEC_PATH) -> None:
        spec = json.loads(spec_path.read_text(encoding="utf-8"))
        _accept_numeric_strings(spec)
        self._spec = spec
        resource = Resource.from_contents(spec, default_specification=DRAFT202012)
        self._registry: Registry[Any] = Registry().with_resource(_SPEC_URI, resource).crawl()
        self._routes: list[tuple[re.Pattern[str], str, dict[str, Any]]] = []
        # Literal segments first, so `/messages/@original` beats `/messages/{message_id}`.
        for template in sorted(spec["paths"], key=lambda t: (t.count("{"), -len(t))):
            pattern = re.sub(r"\\\{[a-z_]+\\\}", r"[^/]+", re.escape(template))
            self._routes.append((re.compile(f"^{pattern}$"), template, spec["paths"][template]))
        self._validators: dict[str, Draft202012Validator] = {}

    def operation(self, method: str, path: str) -> Operation | None:
        """The spec operation for `METHOD /path` (path without the /api/v10 prefix)."""
        for pattern, template, item in self._routes:
            if pattern.match(path) and method.lower() in item:
                operation = item[method.lower()]
                content = operation.get("requestBody", {}).get("content", {})
                schema = content.get("application/json", {}).get("schema")
                return Operation(template, method.upper(), schema)
        return None

    def multipart_problems(self, method: str, path: str) -> list[str]:
        """Problems with sending files (multipart/form-data) to `METHOD /path`."""
        for pattern, template, item in self._routes:
            if pattern.match(path) and method.lower() in item:
                content = item[method.lower()].get("requestBody", {}).get("content", {})
                if "multipart/form-data" in content:
                    return []
                return [f"{method} {template}: this endpoint takes no files (multipart)"]
        return [f"{method} {path}: no such endpoint in Discord's API"]

    def validate(self, method: str, path: str, body: Any) -> list[str]:
        """Problems with this request body; empty when it is valid."""
        operation = self.operation(method, path)
        if operation is None:
            return [f"{method} {path}: no such endpoint in Discord's API"]
        if body is None:
            return []
        if operation.body_schema is None:
            return [f"{method} {path}: this endpoint takes no JSON body"]
        validator = self._validator(operation, body)
        problems = [
            f"{method} {operation.template}: {_describe(error)}"
            for error in sorted(validator.iter_errors(body), key=lambda e: list(e.path))
        ]
        if problems:
            # The extra checks assume a well-typed body.
            return problems
        return [
            f"{method} {operation.template}: {problem}"
            for problem in extra_problems(operation.template, method, body)
        ]

    def _validator(self, operation: Operation, body: Any) -> Draft202012Validator:
        pointer = (
            "/paths/"
            + _escape(operation.template)
            + f"/{operation.method.lower()}/requestBody/content/application~1json/schema"
        )
        # The callback body is a union keyed by `type`; validating against the one
        # member that type selects gives precise errors instead of an anyOf soup.
        kind = body.get("type") if isinstance(body, dict) else None
        member = _CALLBACK_SCHEMAS.get(kind) if isinstance(kind, int) else None
        if operation.template.endswith("/callback") and member:
            pointer = f"/components/schemas/{member}"
        key = pointer
        if key not in self._validators:
            schema = {"$ref": f"{_SPEC_URI}#{quote(pointer, safe='/~')}"}
            self._validators[key] = Draft202012Validator(schema, registry=self._registry)
        return self._validators[key]


_CALLBACK_SCHEMAS = {
    1: "PongInteractionCallbackRequest",
    4: "CreateMessageInteractionCallbackRequest",
    5: "CreateMessageInteractionCallbackRequest",
    6: "UpdateMessageInteractionCallbackRequest",
    7: "UpdateMessageInteractionCallbackRequest",
    8: "ApplicationCommandAutocompleteCallbackRequest",
    9: "ModalInteractionCallbackRequest",
}


def _escape(template: str) -> str:
    return template.replace("~", "~0").replace("/", "~1")


def _describe(error: ValidationError) -> str:
    """The most specific reason: oneOf/anyOf errors descend into the deepest branch."""
    while error.context:
        # Group the failures by union branch; the branch that failed least is the
        # one the sender meant, and its deepest failure is the real reason.
        branches: dict[Any, list[ValidationError]] = {}
        for candidate in error.context:
            branches.setdefault(candidate.relative_schema_path[0], []).append(candidate)
        meant = min(
            branches.values(),
            key=lambda errors: (
                any(str(e.validator) == "type" and e.validator_value == "null" for e in errors),
                len(errors),
            ),
        )
        error = max(
            meant,
            key=lambda e: (
                len(e.absolute_path),
                str(e.validator) not in ("type", "oneOf", "anyOf"),
            ),
        )
    where = "/".join(str(part) for part in error.absolute_path) or "body"
    instance = error.instance
    if str(error.validator) in ("maxLength", "minLength", "maxItems", "minItems") and hasattr(
        instance, "__len__"
    ):
        return f"{where}: length {len(instance)} breaks {error.validator}={error.validator_value}"
    shown = repr(instance)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return f"{where}: {shown} fails {error.validator}={str(error.validator_value)[:80]}"


def _accept_numeric_strings(node: Any) -> None:
    """Discord (and discord.py) send `default_member_permissions` as a numeric
    string, while the spec types it as an integer: accept both."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "default_member_permissions" and isinstance(value, dict):
                node[key] = {"anyOf": [value, {"type": "string", "pattern": "^[0-9]+$"}]}
            else:
                _accept_numeric_strings(value)
    elif isinstance(node, list):
        for item in node:
            _accept_numeric_strings(item)


@cache
def spec_validator() -> SpecValidator:
    """One shared validator per test session (parsing the spec takes a moment)."""
    return SpecValidator()


# --- limits the spec lacks -------------------------------------------------------

_MESSAGE_TEMPLATES = (
    "/channels/{channel_id}/messages",
    "/channels/{channel_id}/messages/{message_id}",
    "/webhooks/{webhook_id}/{webhook_token}",
    "/webhooks/{webhook_id}/{webhook_token}/messages/@original",
    "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}",
)
_COMMAND_TEMPLATES = (
    "/applications/{application_id}/commands",
    "/applications/{application_id}/guilds/{guild_id}/commands",
)


def extra_problems(template: str, method: str, body: Any) -> list[str]:
    if template in _COMMAND_TEMPLATES and method.upper() == "PUT" and isinstance(body, list):
        return [p for command in body for p in command_problems(command)]
    if template.endswith("/callback") and isinstance(body, dict):
        data = body.get("data") or {}
        if body.get("type") == 8:
            return autocomplete_problems(data.get("choices") or [])
        if body.get("type") in (4, 7) and isinstance(data, dict):
            return message_problems(data)
        return []
    if template in _MESSAGE_TEMPLATES and isinstance(body, dict):
        return message_problems(body)
    return []


def command_problems(command: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    name = command.get("name", "")
    chat_input = command.get("type", 1) in (1, None)
    if chat_input:
        problems += _name_problems(f"command {name!r}", command)
        if not command.get("description"):
            problems.append(f"command {name!r}: slash commands need a description")
    total = _command_chars(command)
    if total > COMMAND_TOTAL_CHARS:
        problems.append(
            f"command {name!r}: {total} characters in total (limit {COMMAND_TOTAL_CHARS})"
        )
    for option in _walk_options(command.get("options") or []):
        label = f"command {name!r} option {option.get('name')!r}"
        problems += _name_problems(label, option)
        if not option.get("description"):
            problems.append(f"{label}: options need a description")
        choices = option.get("choices") or []
        if len(choices) > CHOICES_LIMIT:
            problems.append(f"{label}: {len(choices)} choices (limit {CHOICES_LIMIT})")
        if choices and option.get("autocomplete"):
            problems.append(f"{label}: choices and autocomplete are mutually exclusive")
    return problems


def _name_problems(label: str, item: dict[str, Any]) -> list[str]:
    names = [item.get("name", ""), *list((item.get("name_localizations") or {}).values())]
    return [
        f"{label}: name {n!r} does not match Discord's pattern (1-32 lower-case letters, "
        "digits, - or _)"
        for n in names
        if not valid_command_name(n)
    ]


def _walk_options(options: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for option in options:
        yield option
        yield from _walk_options(option.get("options") or [])


def _command_chars(command: dict[str, Any]) -> int:
    """Discord counts names, descriptions and choice names/values (per locale, the longest)."""

    def longest(item: dict[str, Any], key: str) -> int:
        values = [item.get(key) or "", *list((item.get(f"{key}_localizations") or {}).values())]
        return max(len(v) for v in values)

    total = longest(command, "name") + longest(command, "description")
    for option in _walk_options(command.get("options") or []):
        total += longest(option, "name") + longest(option, "description")
        for choice in option.get("choices") or []:
            total += longest(choice, "name") + len(str(choice.get("value", "")))
    return total


def autocomplete_problems(choices: list[dict[str, Any]]) -> list[str]:
    problems = []
    if len(choices) > CHOICES_LIMIT:
        problems.append(f"{len(choices)} autocomplete choices (limit {CHOICES_LIMIT})")
    for choice in choices:
        name, value = choice.get("name", ""), choice.get("value")
        if not 1 <= len(name) <= CHOICE_TEXT_LIMIT:
            problems.append(f"autocomplete choice name of {len(name)} characters: {name[:40]!r}")
        if isinstance(value, str) and len(value) > CHOICE_TEXT_LIMIT:
            problems.append(f"autocomplete choice value of {len(value)} characters")
    return problems


def embed_chars(embed: dict[str, Any]) -> int:
    """Characters Discord counts towards the 6,000 per-message embed total."""
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    total += len((embed.get("footer") or {}).get("text") or "")
    total += len((embed.get("author") or {}).get("name") or "")
    for field in embed.get("fields") or []:
        total += len(field.get("name") or "") + len(field.get("value") or "")
    return total


def message_problems(body: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    content = body.get("content") or ""
    if len(content) > CONTENT_LIMIT:
        problems.append(f"content of {len(content)} characters (limit {CONTENT_LIMIT})")
    embeds = body.get("embeds") or []
    if len(embeds) > EMBEDS_PER_MESSAGE:
        problems.append(f"{len(embeds)} embeds (limit {EMBEDS_PER_MESSAGE})")
    total = sum(embed_chars(e) for e in embeds)
    if total > EMBED_TOTAL_LIMIT:
        problems.append(f"embeds hold {total} characters (limit {EMBED_TOTAL_LIMIT})")
    problems += _component_problems(body.get("components") or [])
    # Project rule: a message carrying text never pings anyone implicitly.
    if content or embeds:
        mentions = body.get("allowed_mentions")
        if mentions is None:
            problems.append("message without allowed_mentions: it could ping @everyone")
        else:
            implicit = set(mentions.get("parse") or [])
            if implicit:
                problems.append(f"allowed_mentions parses {sorted(implicit)}: it could ping")
    return problems


def _component_problems(rows: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    if len(rows) > ACTION_ROWS_LIMIT:
        problems.append(f"{len(rows)} action rows (limit {ACTION_ROWS_LIMIT})")
    custom_ids: list[str] = []
    for row in rows:
        children = row.get("components") or []
        buttons = [c for c in children if c.get("type") == 2]
        if len(buttons) > BUTTONS_PER_ROW:
            problems.append(f"{len(buttons)} buttons in one row (limit {BUTTONS_PER_ROW})")
        for child in children:
            custom_id = child.get("custom_id")
            if custom_id is not None:
                custom_ids.append(custom_id)
                if len(custom_id) > CUSTOM_ID_LIMIT:
                    problems.append(f"custom_id of {len(custom_id)} characters")
    duplicates = {c for c in custom_ids if custom_ids.count(c) > 1}
    if duplicates:
        problems.append(f"duplicate custom_id {sorted(duplicates)}")
    return problems
