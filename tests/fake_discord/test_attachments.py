"""The fake Discord's upload checks: files and attachment entries must match."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fake_discord.attachments import (
    UPLOAD_LIMIT,
    Upload,
    accept_integer_upload_ids,
    store_uploads,
    upload_problems,
)


def callback(*ids: Any) -> dict[str, Any]:
    return {"type": 4, "data": {"attachments": [{"id": i, "filename": "a.bib"} for i in ids]}}


def upload(index: str = "0", data: bytes = b"@misc{x,}", filename: str = "a.bib") -> Upload:
    return Upload(index, filename, "application/octet-stream", data)


@pytest.mark.parametrize(
    ("body", "uploads", "problem"),
    [
        (callback("0"), [upload()], None),
        (callback("0"), [upload("1")], "files[1] has no attachments entry"),
        (callback("0", "1"), [upload()], "attachments entry 1 has no files[1] part"),
        (callback("0"), [upload(filename="")], "files[0] has no filename"),
        (callback("0"), [upload(data=b"x" * (UPLOAD_LIMIT + 1))], "upload limit"),
        ({"attachments": [{"id": "0"}]}, [upload()], None),
    ],
)
def test_upload_problems(body: dict[str, Any], uploads: list[Upload], problem: str | None) -> None:
    found = upload_problems(body, uploads)
    if problem is None:
        assert found == []
    else:
        assert any(problem in p for p in found), found


def test_integer_placeholder_ids_become_strings_and_files_are_kept() -> None:
    body = callback(0)
    accept_integer_upload_ids(body)
    assert body["data"]["attachments"][0]["id"] == "0"
    files: dict[str, bytes] = {}
    store_uploads(body, [upload()], "http://fake", files)
    (attachment,) = body["data"]["attachments"]
    assert attachment["filename"] == "a.bib"
    assert attachment["size"] == len(b"@misc{x,}")
    assert files[attachment["id"]] == b"@misc{x,}"
