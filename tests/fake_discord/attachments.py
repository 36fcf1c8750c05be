"""File uploads: `multipart/form-data` bodies with `payload_json` and `files[n]`.

discord.py sends a message with files as multipart: the message JSON in a
`payload_json` part (validated against the spec like any JSON body) and one
`files[n]` part per file, where `n` is the `id` of the matching entry in the
JSON's `attachments`. Discord refuses an upload whose parts and attachment
entries do not match; so does this fake. The bytes are kept, so tests can
read what the bot attached (`FakeDiscord.attachment_files`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from aiohttp import BodyPartReader, web

from tests.fake_discord.models import new_id

_FILE_PART = re.compile(r"^files\[(\d+)\]$")
# Discord's default upload limit per file (bots without boosts).
UPLOAD_LIMIT = 10 * 1024 * 1024


@dataclass(frozen=True)
class Upload:
    """One `files[n]` part."""

    index: str
    filename: str
    content_type: str
    data: bytes


async def read_multipart(request: web.Request) -> tuple[Any, list[Upload], list[str]]:
    """(payload_json decoded, the uploads, problems) of a multipart request."""
    body: Any = None
    uploads: list[Upload] = []
    problems: list[str] = []
    reader = await request.multipart()
    while (part := await reader.next()) is not None:
        if not isinstance(part, BodyPartReader):
            problems.append("multipart: nested multipart bodies are not accepted")
            continue
        name = part.name or ""
        data = await part.read(decode=True)
        if name == "payload_json":
            try:
                body = json.loads(data)
            except ValueError as exc:
                problems.append(f"multipart: payload_json is not JSON ({exc})")
        elif match := _FILE_PART.match(name):
            content_type = part.headers.get("Content-Type", "application/octet-stream")
            uploads.append(Upload(match.group(1), part.filename or "", content_type, bytes(data)))
        else:
            problems.append(f"multipart: unexpected part {name!r}")
    if body is None and not problems:
        problems.append("multipart: no payload_json part")
    accept_integer_upload_ids(body)
    return body, uploads, problems


def _attachment_entries(body: Any) -> list[dict[str, Any]]:
    """The `attachments` list of a message body or an interaction callback body."""
    if not isinstance(body, dict):
        return []
    holder = body.get("data") if "type" in body and isinstance(body.get("data"), dict) else body
    entries = holder.get("attachments") if isinstance(holder, dict) else None
    return entries if isinstance(entries, list) else []


def accept_integer_upload_ids(body: Any) -> None:
    """Discord's own docs send the upload placeholders as `"id": 0` (integers,
    and discord.py does the same), while its OpenAPI spec types every
    attachment id as a snowflake string: the integer form of just these
    placeholder ids is accepted, as Discord does, by turning it into the string."""
    for entry in _attachment_entries(body):
        if isinstance(entry, dict) and type(entry.get("id")) is int:
            entry["id"] = str(entry["id"])


def upload_problems(body: Any, uploads: list[Upload]) -> list[str]:
    """What Discord would refuse about these files and the JSON's attachment entries."""
    problems = []
    entries = {str(e.get("id")): e for e in _attachment_entries(body) if isinstance(e, dict)}
    for upload in uploads:
        if upload.index not in entries:
            problems.append(f"files[{upload.index}] has no attachments entry with that id")
        if not upload.filename:
            problems.append(f"files[{upload.index}] has no filename")
        if len(upload.data) > UPLOAD_LIMIT:
            problems.append(f"files[{upload.index}] is over the {UPLOAD_LIMIT} byte upload limit")
    uploaded = {u.index for u in uploads}
    problems.extend(
        f"attachments entry {index} has no files[{index}] part"
        for index in entries
        if index not in uploaded
    )
    return problems


def store_uploads(body: Any, uploads: list[Upload], base_url: str, files: dict[str, bytes]) -> None:
    """Replace the JSON's attachment entries by attachment objects as Discord
    returns them, keeping each file's bytes in `files` under its attachment id."""
    by_index = {u.index: u for u in uploads}
    for entry in _attachment_entries(body):
        upload = by_index.get(str(entry.get("id")))
        if upload is None:
            continue
        attachment_id = str(new_id())
        filename = entry.get("filename") or upload.filename
        files[attachment_id] = upload.data
        entry.clear()
        entry.update(
            {
                "id": attachment_id,
                "filename": filename,
                "size": len(upload.data),
                "url": f"{base_url}/attachments/{attachment_id}/{filename}",
                "proxy_url": f"{base_url}/attachments/{attachment_id}/{filename}",
                "content_type": upload.content_type,
            }
        )
