"""Planning a corpus load: what it inserts, updates, keeps and retires,
decided from the parsed files and the stored records before any write."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter

from paperbot.core.corpus import merge_entries
from paperbot.core.models import PaperRecord, ParsedFile
from paperbot.core.text import title_key

# An entry's (file, line) and its title, got in C: a load takes them from
# every entry.
_ENTRY_ORDER = attrgetter("source.file", "source.line")
_TITLE = attrgetter("title")


@dataclass(frozen=True, slots=True)
class LoadPlan:
    """What a load changes, decided before any write."""

    inserts: tuple[PaperRecord, ...]
    updates: tuple[PaperRecord, ...]
    removals: tuple[str, ...]
    unchanged: int
    entries_read: int
    touched: frozenset[str]

    @property
    def duplicates_merged(self) -> int:
        return self.entries_read - len(self.touched)


def loaded_files(files: Sequence[ParsedFile]) -> list[ParsedFile]:
    """The files a load takes in: a file that yielded nothing but problems is
    left out, so a broken file never wipes the papers it held."""
    return [f for f in files if f.entries or not f.problems]


def plan_load(
    existing: Mapping[str, PaperRecord],
    files: Sequence[ParsedFile],
    key: Callable[[str], str] = title_key,
) -> LoadPlan:
    """Replace what the loaded files said before with what they say now
    (`key`: how a title's `title_key` is had, e.g. a load's `TitleKeys`).

    `existing` needs only the stored records the load can change: those with
    an entry from one of the files, or whose key one of the entries has.
    Entries from other files are kept.
    """
    loaded = loaded_files(files)
    names = {f.file for f in loaded}
    fresh = [e for f in loaded for e in f.entries]
    kept = [e for r in existing.values() for e in r.entries if e.source.file not in names]
    merged = {r.key: r for r in merge_entries(sorted([*kept, *fresh], key=_ENTRY_ORDER), key)}
    touched = frozenset(map(key, map(_TITLE, fresh)))
    if not existing:  # a first load: only inserts, no pass over them for the rest
        return LoadPlan(tuple(merged.values()), (), (), 0, len(fresh), touched)
    inserts = tuple(r for k, r in merged.items() if k not in existing)
    updates = tuple(r for k, r in merged.items() if k in existing and existing[k] != r)
    unchanged = sum(1 for k in touched if k in existing and existing[k] == merged[k])
    removals = tuple(k for k in existing if k not in merged)
    return LoadPlan(inserts, updates, removals, unchanged, len(fresh), touched)
