"""Decoding a digest page's bytes: UTF-8, one bad byte replaced (and its
line reported) rather than the page rejected (`core.corpus` parses the text)."""

from __future__ import annotations

import codecs
import re
from bisect import bisect_right

from paperbot.core.models import Problem
from paperbot.core.text import strip_invisible

LINE_BREAK = re.compile(r"\r\n|\r|\n")

#: Lines with bad bytes reported one by one; more are summed up in one problem.
_BAD_LINES_LISTED = 20
_ASCII = bytes(range(128))


def decode(data: bytes, file: str) -> str | Problem:
    """The page's text (bad bytes replaced by U+FFFD), or why it is skipped."""
    decoded = decode_page(data, file)
    return decoded if isinstance(decoded, Problem) else decoded[0]


def decode_page(data: bytes, file: str) -> tuple[str, tuple[Problem, ...]] | Problem:
    """UTF-8 text (a BOM is dropped) and a problem per line with bad bytes.

    One bad byte must not reject a page: it is replaced by U+FFFD and its
    line reported. A file mostly not UTF-8 (another encoding: its bad bytes
    are at least half of its non-ASCII bytes, or on over a tenth of its
    lines) or with NUL bytes is skipped.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    text, bad_positions, bad_bytes = _decode_replacing(data)
    if "\x00" in text:
        return Problem(file, None, "binary file (NUL bytes): skipped")
    if not bad_positions:
        return text, ()
    starts = [0] + [m.end() for m in LINE_BREAK.finditer(text)]
    bad_lines = sorted({bisect_right(starts, position) for position in bad_positions})
    non_ascii = len(data.translate(None, _ASCII))
    if bad_bytes * 2 >= non_ascii or len(bad_lines) * 10 > len(starts):
        return Problem(file, None, f"not UTF-8 text (byte {bad_positions[0]}): skipped")
    reason = "bytes that are not UTF-8, replaced by U+FFFD (the line was loaded)"
    problems = [Problem(file, line, reason, warning=True) for line in bad_lines]
    if len(problems) > _BAD_LINES_LISTED:
        more = len(problems) - _BAD_LINES_LISTED
        problems = problems[:_BAD_LINES_LISTED]
        problems.append(Problem(file, None, f"{more} more lines with bad bytes", warning=True))
    return text, tuple(problems)


def _decode_replacing(data: bytes) -> tuple[str, list[int], int]:
    """(text, where each U+FFFD was put in the text, bad bytes), in one pass."""
    view = memoryview(data)
    pieces: list[str] = []
    positions: list[int] = []
    length = start = bad = 0
    while True:
        try:
            piece, _ = codecs.utf_8_decode(view[start:], "strict", True)
        except UnicodeDecodeError as exc:
            piece, _ = codecs.utf_8_decode(view[start : start + exc.start], "strict", True)
            pieces += (piece, "\ufffd")
            positions.append(length + len(piece))
            length += len(piece) + 1
            bad += exc.end - exc.start
            start += exc.end
            continue
        pieces.append(piece)
        return "".join(pieces), positions, bad


def page_lines(text: str) -> list[str]:
    """The page's lines, stripped, with invisible characters dropped."""
    if "\r" in text:
        # Dropping them first could join a `\r` and a `\n` into one break.
        return [strip_invisible(line).strip() for line in LINE_BREAK.split(text)]
    return list(map(str.strip, strip_invisible(text).split("\n")))
