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

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from operator import attrgetter

from paperbot.core.corpus_decode import decode as decode
from paperbot.core.corpus_decode import decode_page as decode_page
from paperbot.core.corpus_decode import page_lines
from paperbot.core.models import Entry, PaperRecord, ParsedFile, Problem, Source
from paperbot.core.text import CJK_CLASS, collapse_whitespace, has_cjk, title_key

# Bump when parsing changes, so unchanged files are parsed again on next load.
# 2: bad bytes are replaced (the line is reported) instead of skipping the file;
#    size, length and noise limits.
PARSER_VERSION = 2

# Where a summary may begin: an ideograph, CJK punctuation or a full-width form.
_SUMMARY_START = f"{CJK_CLASS}\u3000-\u303f\uff01-\uff5e"
_CJK_CHAR = re.compile(f"[{_SUMMARY_START}]")
# `Title: summary`, `Title：summary`, `Title:摘要` (no space before CJK), or a
# bare `Title:` (title only).
_SEPARATOR = re.compile(rf":\s+|：\s*|:(?=[{CJK_CLASS}])|:$")
# The title before the last separator ahead of the first summary character
# (greedy), or before the first separator (lazy: for a line with none).
_LAST_SEPARATOR = re.compile(rf"([^{_SUMMARY_START}]+)(?:{_SEPARATOR.pattern})")
_FIRST_SEPARATOR = re.compile(rf"(.+?)(?:{_SEPARATOR.pattern})")
_AREA_LINE = re.compile(r"^\W*\s*(?P<area>[^\s¶].*?)\s*¶\s*$")
_HEADER_VENUE = re.compile(
    r"^\W*\s*(?P<venue>[A-Za-z][A-Za-z-]*?)\s*(?P<year>(?:19|20)\d{2})\s*[·•|]\s*(?P<count>\d+)\s*篇"
)
_PLAIN_VENUE = re.compile(r"^(?P<venue>[A-Za-z][A-Za-z-]{1,15})\s?(?P<year>(?:19|20)\d{2})$")
#: The longest line `_PLAIN_VENUE` matches (1 + 15 letters, a space, a year).
_VENUE_LINE_MAX = 21
_FILE_VENUE = re.compile(r"(?P<venue>[A-Za-z]+)[-_ ]?(?P<year>(?:19|20)\d{2})")
# Known spellings; anything else keeps the file's own casing.
_KNOWN_VENUES = ("NeurIPS", "ICML", "ICLR", "ACL", "EMNLP", "NAACL", "CVPR", "ICCV", "ECCV")
_VENUE_NAMES = {
    name.casefold(): name for name in (*_KNOWN_VENUES, "AAAI", "IJCAI", "COLM", "KDD", "TMLR")
}
_METADATA_MARKERS = ("同领域", "高频主题", "跨会议")
_TITLE = attrgetter("title")


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
    lines = page_lines(text.removeprefix("\ufeff"))
    ctx = replace(_header_context(lines, file, default_area), limits=limits)
    if ctx.venue is None or ctx.year is None:
        problem = Problem(
            file, None, "no venue and year (no venue line, and none in the file name): skipped"
        )
        return ParsedFile(file, (), (problem,))
    block, splits, content = _layout(lines)
    if block:
        entries, problems = _parse_blocks(lines, ctx)
    else:
        entries, problems = _parse_lines(lines, ctx, splits, content)
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
    distinct = len(set(map(key, map(_TITLE, entries))))
    if distinct * 2 >= len(entries):
        return []
    reason = (
        f"only {distinct} distinct titles among {len(entries)} papers: "
        "the page looks like noise, check it"
    )
    return [Problem(file, None, reason, warning=True)]


def _looks_like_noise(title: str) -> bool:
    """Mostly symbols or digits: letters are under half of the visible characters."""
    if title.isascii():
        # The usual title: its bytes' `translate` counts in C, not per character.
        shown = title.encode().translate(None, _ASCII_SPACES)
        letters = len(shown) - len(shown.translate(None, _ASCII_LETTERS))
        return letters * 2 < len(shown)
    # `split()` drops the same characters `isspace` does.
    visible = "".join(title.split())
    letters = len(visible) if visible.isalpha() else sum(map(str.isalpha, visible))
    return letters * 2 < len(visible)


_ASCII_SPACES = bytes(c for c in range(128) if chr(c).isspace())
_ASCII_LETTERS = bytes(c for c in range(128) if chr(c).isalpha())


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


def _layout(lines: list[str]) -> tuple[bool, dict[int, tuple[str, str] | None], list[int]]:
    """Block layout (a plain venue line, or titles standing alone on lines)
    or not, the lines split on the way by index (not split again), and the
    indexes of the lines that are neither blank nor a header."""
    splits: dict[int, tuple[str, str] | None] = {}
    if any(map(_PLAIN_VENUE.match, [line for line in lines if len(line) <= _VENUE_LINE_MAX])):
        return True, splits, []
    content = [i for i, line in enumerate(lines) if line and not _is_header(line)]
    separated = 0
    for i in content:
        split = splits[i] = _split_title(lines[i])
        separated += split is not None
        # Decided once half are "Title: summary" lines: skip the rest.
        if separated * 2 >= len(content):
            return False, splits, content
    return bool(content), splits, content


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


_SYMBOLS = ("So", "Sk", "Cn")


def _starts_with_symbol(line: str) -> bool:
    return bool(line) and unicodedata.category(line[0]) in _SYMBOLS


def _split_title(line: str) -> tuple[str, str] | None:
    """(title, summary) split at the last separator before the summary starts
    (the first CJK character, which the title part of the match excludes)."""
    sep = _LAST_SEPARATOR.match(line)
    # Without CJK there is no sign where the summary starts: take the first.
    # (None is before the separator: look from there, usually one character.)
    if sep is not None and _CJK_CHAR.search(line, sep.end(1)) is None:
        sep = _FIRST_SEPARATOR.match(line)
    if sep is None:
        return None
    title, summary = sep[1].strip(), line[sep.end() :].strip()
    # `_looks_like_title` without its CJK check: the title ends before the
    # first CJK character. Most start with a letter: no generator for them.
    if not (title[:1].isalpha() or any(ch.isalpha() for ch in title)):
        return None
    return title, summary


def _looks_like_title(text: str) -> bool:
    return any(ch.isalpha() for ch in text) and not has_cjk(text)


def _parse_lines(
    lines: list[str],
    ctx: _Context,
    known: dict[int, tuple[str, str] | None],
    content: list[int],
) -> tuple[list[Entry], list[Problem]]:
    """The entries of the `content` lines (by index), and the problems."""
    entries: list[Entry] = []
    problems: list[Problem] = []
    max_chars = ctx.limits.max_line_chars
    # An overlong line is reported even when it is a header (none usually is).
    longer = [i for i, line in enumerate(lines) if len(line) > max_chars]
    for i in sorted({*content, *longer}) if longer else content:
        line = lines[i]
        if len(line) > max_chars:
            reason = f"line of {len(line)} characters, longer than a title and summary may be"
            problems.append(Problem(ctx.file, i + 1, f"{reason}: skipped"))
            continue
        split = known[i] if i in known else _split_title(line)
        if split is None:
            problems.append(Problem(ctx.file, i + 1, _why_not_an_entry(line)))
            continue
        entry = _line_entry(ctx, *split, i + 1)
        if isinstance(entry, str):
            problems.append(Problem(ctx.file, i + 1, entry))
        else:
            entries.append(entry)
    return entries, problems


def _line_entry(ctx: _Context, title: str, summary: str, number: int) -> Entry | str:
    """The entry of a split line (both parts stripped), or why it is skipped."""
    limits = ctx.limits
    if (
        len(title) > limits.max_title_chars
        or len(summary) > limits.max_summary_chars
        or _looks_like_noise(title)
    ):
        return _limit_problem(ctx, title, (summary,) if summary else ()) or ""
    assert ctx.venue is not None
    assert ctx.year is not None
    summaries = (_collapse_stripped(summary),) if summary else ()
    title = _collapse_stripped(title)
    return Entry(title, ctx.venue, ctx.year, ctx.area, summaries, Source(ctx.file, number))


def _collapse_stripped(text: str) -> str:
    """`collapse_whitespace` of stripped text: most has nothing to collapse
    (`isprintable` is false for every whitespace character but the space)."""
    return text if text.isprintable() and "  " not in text else collapse_whitespace(text)


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
    first: dict[str, Entry] = {}
    # A paper's later entries, apart: a paper's one entry (the usual case)
    # needs no list.
    later: dict[str, list[Entry]] = {}
    for entry in entries:
        k = key(entry.title)
        if k not in first:
            first[k] = entry
        else:
            later.setdefault(k, []).append(entry)
    return [
        PaperRecord(k, e.title, e.venue, e.year, e.area, (e, *later[k]) if k in later else (e,))
        for k, e in first.items()
    ]
