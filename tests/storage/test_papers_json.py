"""A paper's row holds its entries and summaries as the JSON that
`json.dumps(..., ensure_ascii=False)` writes, though written out by hand."""

from __future__ import annotations

import json

import pytest

from paperbot.core.models import Entry, PaperRecord, Source
from paperbot.storage.papers import _row


def entry(title: str, summaries: tuple[str, ...], file: str = "a.txt", line: int = 3) -> Entry:
    return Entry(title, "NeurIPS", 2025, "预训练", summaries, Source(file, line))


def reference(record: PaperRecord) -> tuple[str, str]:
    entries = [
        {
            "title": e.title,
            "venue": e.venue,
            "year": e.year,
            "area": e.area,
            "summaries": list(e.summaries),
            "file": e.source.file,
            "line": e.source.line,
        }
        for e in record.entries
    ]
    dumps = json.JSONEncoder(ensure_ascii=False).encode
    return dumps(entries), dumps(record.summaries)


@pytest.mark.parametrize(
    "entries",
    [
        (entry("Plain Title", ("中文摘要。",)),),
        (entry("No Summary", ()),),
        (entry('Quote " and \\ backslash', ("tab\there", "line\nbreak", "\x01\x1f\u2028")),),
        (entry("Two Summaries", ("同一", "同一")),),
        (entry("Dup", ("甲",)), entry("Dup", ("乙", "甲"), 'b "x".txt', 99)),
        (entry("Emoji 🧠 and \ud7ff", ("😀",), "页面.txt", 1),),
    ],
)
def test_row_json_is_what_json_dumps_writes(entries: tuple[Entry, ...]) -> None:
    record = PaperRecord("key", entries[0].title, "NeurIPS", 2025, "预训练", entries)
    row = _row(record)
    assert row[:5] == ("key", entries[0].title, "NeurIPS", 2025, "预训练")
    assert row[5:] == reference(record)
    assert json.loads(row[6]) == list(record.summaries)
