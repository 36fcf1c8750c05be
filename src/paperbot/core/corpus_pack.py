"""A parsed page as plain columns, to cross from a worker process cheaply.

Pickling a `ParsedFile` pickles each of its entries as two dataclass
objects whose state is set again field by field: taking 20,000 entries
back costs two thirds of parsing them. As columns of strings and numbers
they unpickle in a tenth of that, and the entries are made again in one
pass (`unpack`). The titles' keys come along, so the loading process need
not work them out again (`TitleKeys.update`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from paperbot.core.models import Entry, ParsedFile, Problem, Source


class PackedFile(NamedTuple):
    """A `ParsedFile`'s entries column-wise; `contexts` the distinct (venue,
    year, area) of its entries and `context_of` each entry's among them."""

    file: str
    titles: list[str]
    summaries: list[tuple[str, ...]]
    lines: list[int]
    contexts: list[tuple[str, int, str]]
    context_of: list[int]
    problems: tuple[Problem, ...]
    keys: list[str]


def pack(parsed: ParsedFile, key: Callable[[str], str]) -> PackedFile:
    """`parsed` as columns, with each title's key (`key`: a `TitleKeys`)."""
    contexts: dict[tuple[str, int, str], int] = {}
    context_of = [
        contexts.setdefault((e.venue, e.year, e.area), len(contexts)) for e in parsed.entries
    ]
    titles = [e.title for e in parsed.entries]
    return PackedFile(
        file=parsed.file,
        titles=titles,
        summaries=[e.summaries for e in parsed.entries],
        lines=[e.source.line for e in parsed.entries],
        contexts=list(contexts),
        context_of=context_of,
        problems=parsed.problems,
        keys=list(map(key, titles)),
    )


def unpack(packed: PackedFile) -> ParsedFile:
    """The `ParsedFile` that `pack` was given (equal to it)."""
    file = packed.file
    rows = zip(packed.titles, packed.summaries, packed.lines, packed.context_of, strict=True)
    contexts = packed.contexts
    entries = tuple(
        Entry(title, *contexts[at], summaries, Source(file, line))
        for title, summaries, line, at in rows
    )
    return ParsedFile(file, entries, packed.problems)
