"""Parsing digest pages, and merging their entries into papers (what a load
changes is planned in `core.load_plan`).

Two layouts exist:

1. *Line layout*: a header (`📚 预训练¶`, `🧠 NeurIPS2025 · 42 篇论文解读`,
   optional `📌 …` / `🔥 …` metadata lines), then one `Title: 中文摘要` per line.
2. *Block layout*: a venue line (`NeurIPS 2023`), then per paper an English
   title line, a blank line, and zero or more (Chinese) summary paragraphs.

Titles contain `: ` themselves, so a line-layout title ends at the last
separator before the first CJK character: the summary is Chinese, titles
are not.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from paperbot.core.models import Entry, PaperRecord, ParsedFile, Problem, Source
from paperbot.core.text import CJK_CLASS, collapse_whitespace, has_cjk, strip_invisible, title_key

# Bump when parsing changes, so unchanged files are parsed again on next load.
# 2: bad bytes are replaced (the line is reported) instead of skipping the file;
#    size, length and noise limits.
PARSER_VERSION = 2

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# Where a summary may begin: an ideograph, CJK punctuation or a full-width form.
_CJK_CHAR = re.compile(f"[{CJK_CLASS}\u3000-\u303f\uff01-\uff5e]")
# `Title: summary`, `Title：summary`, `Title:摘要` (no space before CJK), or a
# bare `Title:` (title only).
_SEPARATOR = re.compile(rf":\s+|：\s*|:(?=[{CJK_CLASS}])|:$")
_AREA_LINE = re.compile(r"^\W*\s*(?P<area>[^\s¶].*?)\s*¶\s*$")
_HEADER_VENUE = re.compile(
    r"^\W*\s*(?P<venue>[A-Za-z][A-Za-z-]*?)\s*(?P<year>(?:19|20)\d{2})\s*[·•|]\s*(?P<count>\d+)\s*篇"
)
_PLAIN_VENUE = re.compile(r"^(?P<venue>[A-Za-z][A-Za-z-]{1,15})\s?(?P<year>(?:19|20)\d{2})$")
_FILE_VENUE = re.compile(r"(?P<venue>[A-Za-z]+)[-_ ]?(?P<year>(?:19|20)\d{2})")
# Known spellings; anything else keeps the file's own casing.
_KNOWN_VENUES = ("NeurIPS", "ICML", "ICLR", "ACL", "EMNLP", "NAACL", "CVPR", "ICCV", "ECCV")
_VENUE_NAMES = {
    name.casefold(): name for name in (*_KNOWN_VENUES, "AAAI", "IJCAI", "COLM", "KDD", "TMLR")
}
_METADATA_MARKERS = ("同领域", "高频主题", "跨会议")


def venue_name(raw: str) -> str:
    """Canonical venue spelling: `neurips` -> `NeurIPS`."""
    return _VENUE_NAMES.get(raw.casefold(), raw)


@dataclass(frozen=True, slots=True)
class CorpusLimits:
    """What one page may hold, so a hostile or broken page cannot take the bot
    down (defaults match `corpus.*` in the configuration)."""

    max_file_bytes: int = 5 * 1024 * 1024
    max_title_chars: int = 500
    max_summary_chars: int = 5000
    max_entries_per_file: int = 5000

    @property
    def max_line_chars(self) -> int:
        # A line-layout line holds a title, a separator and a summary.
        return self.max_title_chars + self.max_summary_chars + 10


@dataclass(frozen=True, slots=True)
class _Context:
    file: str
    venue: str | None
    year: int | None
    area: str
    limits: CorpusLimits = CorpusLimits()


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
    starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]
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


def parse_text(
    text: str,
    file: str,
    default_area: str,
    limits: CorpusLimits | None = None,
    key: Callable[[str], str] = title_key,
) -> ParsedFile:
    """Parse one page in either layout, within `limits` (`key`: how a
    title's `title_key` is had, e.g. a load's `TitleKeys`)."""
    limits = limits or CorpusLimits()
    lines = [
        strip_invisible(line).strip() for line in _LINE_BREAK.split(text.removeprefix("\ufeff"))
    ]
    ctx = replace(_header_context(lines, file, default_area), limits=limits)
    if ctx.venue is None or ctx.year is None:
        problem = Problem(
            file, None, "no venue and year (no venue line, and none in the file name): skipped"
        )
        return ParsedFile(file, (), (problem,))
    block, splits = _layout(lines)
    if block:
        entries, problems = _parse_blocks(lines, ctx)
    else:
        entries, problems = _parse_lines(lines, ctx, splits)
    if len(entries) > limits.max_entries_per_file:
        reason = (
            f"{len(entries)} papers, more than corpus.max_entries_per_file "
            f"({limits.max_entries_per_file}): skipped"
        )
        return ParsedFile(file, (), (Problem(file, None, reason),))
    problems += _noise_warning(file, entries, key)
    return ParsedFile(file, tuple(entries), tuple(problems))


#: A page with at least this many papers is checked for repeated junk titles.
_NOISE_MIN_ENTRIES = 20


def _noise_warning(
    file: str, entries: Sequence[Entry], key: Callable[[str], str] = title_key
) -> list[Problem]:
    """A warning when most "titles" repeat: a generated or corrupted page."""
    if len(entries) < _NOISE_MIN_ENTRIES:
        return []
    distinct = len({key(e.title) for e in entries})
    if distinct * 2 >= len(entries):
        return []
    reason = (
        f"only {distinct} distinct titles among {len(entries)} papers: "
        "the page looks like noise, check it"
    )
    return [Problem(file, None, reason, warning=True)]


def _looks_like_noise(title: str) -> bool:
    """Mostly symbols or digits: letters are under half of the visible characters."""
    # `split()` drops the same characters `isspace` does; letters are counted
    # at once when all of them are (the usual title), else one by one in C.
    visible = "".join(title.split())
    letters = len(visible) if visible.isalpha() else sum(map(str.isalpha, visible))
    return letters * 2 < len(visible)


def _limit_problem(ctx: _Context, title: str, summaries: Sequence[str]) -> str | None:
    """Why an entry breaks the limits or looks like noise, or None."""
    limits = ctx.limits
    if len(title) > limits.max_title_chars:
        return (
            f"title of {len(title)} characters, longer than corpus.max_title_chars "
            f"({limits.max_title_chars}): skipped"
        )
    summary_chars = sum(len(s) for s in summaries)
    if summary_chars > limits.max_summary_chars:
        return (
            f"summary of {summary_chars} characters, longer than corpus.max_summary_chars "
            f"({limits.max_summary_chars}): skipped"
        )
    if _looks_like_noise(title):
        return "title looks like noise (mostly symbols or digits): skipped"
    return None


def _header_context(lines: list[str], file: str, default_area: str) -> _Context:
    area, venue, year = default_area, None, None
    for line in lines:
        if (m := _HEADER_VENUE.match(line)) or (m := _PLAIN_VENUE.match(line)):
            venue, year = venue_name(m["venue"]), int(m["year"])
            break
        if m := _AREA_LINE.match(line):
            area = m["area"]
    if venue is None and (m := _FILE_VENUE.search(file)):
        venue, year = venue_name(m["venue"]), int(m["year"])
    return _Context(file, venue, year, area)


def _layout(lines: list[str]) -> tuple[bool, dict[int, tuple[str, str] | None]]:
    """Block layout (a plain venue line, or titles standing alone on lines)
    or not, and the lines split on the way by index (not split again)."""
    splits: dict[int, tuple[str, str] | None] = {}
    if any(_PLAIN_VENUE.match(line) for line in lines):
        return True, splits
    content = [i for i, line in enumerate(lines) if line and not _is_header(line)]
    separated = 0
    for i in content:
        split = splits[i] = _split_title(lines[i])
        separated += split is not None
        # Decided once half are "Title: summary" lines: skip the rest.
        if separated * 2 >= len(content):
            return False, splits
    return bool(content), splits


def _is_header(line: str) -> bool:
    # Header lines start with an emoji or are a short venue line: skip the
    # regexes for the (many) paper lines.
    if len(line) > 25 and not _starts_with_symbol(line):
        return False
    if _AREA_LINE.match(line) or _HEADER_VENUE.match(line) or _PLAIN_VENUE.match(line):
        return True
    # Page metadata lines start with an emoji and are not papers.
    return _starts_with_symbol(line) and (
        any(m in line for m in _METADATA_MARKERS) or "：" in line[:12]
    )


def _starts_with_symbol(line: str) -> bool:
    return bool(line) and unicodedata.category(line[0]) in ("So", "Sk", "Cn")


def _split_title(line: str) -> tuple[str, str] | None:
    """(title, summary) split at the last separator before the summary starts."""
    first_cjk = _CJK_CHAR.search(line)
    # Only the part before the first CJK character can hold the title; the
    # +1 lets a full-width colon or a `:` glued to CJK be seen.
    head = line[: first_cjk.start() + 1] if first_cjk else line
    candidates = [m for m in _SEPARATOR.finditer(head) if m.start() > 0]
    if not candidates:
        return None
    # Without CJK there is no sign where the summary starts: take the first.
    sep = candidates[-1] if first_cjk else candidates[0]
    title, summary = line[: sep.start()].strip(), line[sep.end() :].strip()
    # `_looks_like_title` without its CJK check: the title ends before the
    # first CJK character. Most start with a letter: no generator for them.
    if not (title[:1].isalpha() or any(ch.isalpha() for ch in title)):
        return None
    return title, summary


def _looks_like_title(text: str) -> bool:
    return any(ch.isalpha() for ch in text) and not has_cjk(text)


def _parse_lines(
    lines: list[str], ctx: _Context, known: dict[int, tuple[str, str] | None]
) -> tuple[list[Entry], list[Problem]]:
    entries: list[Entry] = []
    problems: list[Problem] = []
    for number, line in enumerate(lines, start=1):
        if len(line) > ctx.limits.max_line_chars:
            reason = f"line of {len(line)} characters, longer than a title and summary may be"
            problems.append(Problem(ctx.file, number, f"{reason}: skipped"))
            continue
        if not line or _is_header(line):
            continue
        split = known[number - 1] if number - 1 in known else _split_title(line)
        if split is None:
            problems.append(Problem(ctx.file, number, _why_not_an_entry(line)))
            continue
        title, summary = split
        summaries = (summary,) if summary else ()
        if (why := _limit_problem(ctx, title, summaries)) is not None:
            problems.append(Problem(ctx.file, number, why))
            continue
        entries.append(_entry(ctx, title, summaries, number))
    return entries, problems


def _why_not_an_entry(line: str) -> str:
    if _SEPARATOR.search(line) is None:
        return "no 'Title: summary' separator on this line: skipped"
    return "no English title before the ': ' separator: skipped"


def _parse_blocks(lines: list[str], ctx: _Context) -> tuple[list[Entry], list[Problem]]:
    entries: list[Entry] = []
    problems: list[Problem] = []
    title: tuple[str, int] | None = None
    paragraphs: list[str] = []

    def flush() -> None:
        if title is None:
            return
        if (why := _limit_problem(ctx, title[0], paragraphs)) is not None:
            problems.append(Problem(ctx.file, title[1], why))
        else:
            entries.append(_entry(ctx, title[0], tuple(paragraphs), title[1]))

    for number, line in enumerate(lines, start=1):
        if len(line) > ctx.limits.max_summary_chars:
            reason = f"line of {len(line)} characters, longer than corpus.max_summary_chars"
            problems.append(Problem(ctx.file, number, f"{reason}: skipped"))
            continue
        if not line or _is_header(line):
            if m := _PLAIN_VENUE.match(line):
                flush()
                title, paragraphs = None, []
                ctx = replace(ctx, venue=venue_name(m["venue"]), year=int(m["year"]))
            continue
        if _is_block_title(line):
            flush()
            title, paragraphs = (line, number), []
        elif title is None:
            problems.append(
                Problem(ctx.file, number, "summary paragraph with no title above it: skipped")
            )
        else:
            paragraphs.append(line)
    flush()
    return entries, problems


def _is_block_title(line: str) -> bool:
    """A title is an English line; an English *paragraph* is long, or a sentence."""
    if not _looks_like_title(line):
        return False
    reads_as_prose = len(line) > 300 or (line.endswith(".") and len(line.split()) > 20)
    return not reads_as_prose


def _entry(ctx: _Context, title: str, summaries: tuple[str, ...], line: int) -> Entry:
    assert ctx.venue is not None
    assert ctx.year is not None
    return Entry(
        title=collapse_whitespace(title),
        venue=ctx.venue,
        year=ctx.year,
        area=ctx.area,
        summaries=tuple(collapse_whitespace(s) for s in summaries if s.strip()),
        source=Source(ctx.file, line),
    )


def merge_entries(
    entries: Iterable[Entry], key: Callable[[str], str] = title_key
) -> list[PaperRecord]:
    """Group entries by normalised title; the first entry names the paper."""
    groups: dict[str, list[Entry]] = {}
    for entry in entries:
        groups.setdefault(key(entry.title), []).append(entry)
    return [_record(key, group) for key, group in groups.items()]


def _record(key: str, group: list[Entry]) -> PaperRecord:
    first = group[0]
    return PaperRecord(key, first.title, first.venue, first.year, first.area, tuple(group))
