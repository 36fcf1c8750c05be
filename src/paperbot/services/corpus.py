"""Loading digest files into the store."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from paperbot.core.corpus import PARSER_VERSION, decode, parse_text, plan_load
from paperbot.core.models import Entry, PaperRecord, ParsedFile, Problem
from paperbot.storage import papers
from paperbot.storage.db import Database

log = logging.getLogger(__name__)

CORPUS_SUFFIXES = (".txt", ".md")


@dataclass(frozen=True, slots=True)
class LoadReport:
    files: int
    entries: int
    new: int
    updated: int
    unchanged: int
    removed: int
    duplicates_merged: int
    problems: tuple[Problem, ...] = field(default=())

    @property
    def clean(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, object]:
        return {
            "files": self.files,
            "entries": self.entries,
            "new": self.new,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "duplicates_merged": self.duplicates_merged,
            "skipped": [
                {"file": p.file, "line": p.line, "reason": p.reason} for p in self.problems
            ],
        }


class CorpusPathError(Exception):
    """A path given to load does not exist or holds no digest files."""


def corpus_files(paths: Iterable[Path]) -> list[Path]:
    """Digest files named directly, or found (sorted) in the folders named."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(
                sorted(p for p in path.iterdir() if p.suffix in CORPUS_SUFFIXES and p.is_file())
            )
        elif path.is_file():
            files.append(path)
        else:
            raise CorpusPathError(f"{path}: no such file or folder")
    return files


@dataclass(frozen=True, slots=True)
class _FileRead:
    """One file's outcome: parsed, a problem, or unchanged since the last load."""

    name: str
    fingerprint: str | None
    result: ParsedFile | Problem | None


def _read_one(path: Path, default_area: str, known: Mapping[str, str]) -> _FileRead:
    try:
        data = path.read_bytes()
    except OSError as exc:
        return _FileRead(
            path.name, None, Problem(path.name, None, f"cannot read: {exc.strerror}: skipped")
        )
    fingerprint = file_fingerprint(data, default_area)
    if known.get(path.name) == fingerprint:
        return _FileRead(path.name, fingerprint, None)
    text = decode(data, path.name)
    if isinstance(text, Problem):
        return _FileRead(path.name, None, text)
    return _FileRead(path.name, fingerprint, parse_text(text, path.name, default_area))


def _stored_files(existing: Mapping[str, PaperRecord], names: set[str]) -> list[ParsedFile]:
    """What unchanged files said last time, rebuilt from the stored entries."""
    by_file: dict[str, list[Entry]] = {name: [] for name in names}
    for record in existing.values():
        for entry in record.entries:
            if entry.source.file in by_file:
                by_file[entry.source.file].append(entry)
    return [
        ParsedFile(name, tuple(sorted(entries, key=lambda e: e.source.line)), ())
        for name, entries in by_file.items()
    ]


def file_fingerprint(data: bytes, default_area: str) -> str:
    """Changes when the bytes, the default area or the parser change."""
    digest = hashlib.sha256(f"{PARSER_VERSION}\0{default_area}\0".encode())
    digest.update(data)
    return digest.hexdigest()


async def load_corpus(
    db: Database,
    paths: Sequence[Path],
    *,
    default_area: str,
    now: datetime,
    progress: Callable[[Path], object] | None = None,
) -> LoadReport:
    """Parse the files and apply the result in one transaction.

    A file whose fingerprint matches the last load is not parsed again: its
    stored entries stand in for it, so the report reads as for a full parse.
    """
    files = corpus_files(paths)
    known = await papers.file_fingerprints(db)
    reads = []
    for path in files:
        reads.append(_read_one(path, default_area, known))
        if progress is not None:
            progress(path)
    existing = await papers.existing_records(db)
    parsed = [r.result for r in reads if isinstance(r.result, ParsedFile)]
    unchanged = _stored_files(existing, {r.name for r in reads if r.result is None})
    plan = plan_load(existing, [*parsed, *unchanged])
    # Only files that really loaded get a new fingerprint (not broken ones).
    loaded = {f.file for f in parsed if f.entries or not f.problems}
    fingerprints = {r.name: r.fingerprint for r in reads if r.fingerprint and r.name in loaded}
    await papers.apply_load(db, plan, now, fingerprints)
    problems = [r.result for r in reads if isinstance(r.result, Problem)]
    report = LoadReport(
        files=len(files),
        entries=plan.entries_read,
        new=len(plan.inserts),
        updated=len(plan.updates),
        unchanged=plan.unchanged,
        removed=len(plan.removals),
        duplicates_merged=plan.duplicates_merged,
        problems=(*problems, *(p for f in parsed for p in f.problems)),
    )
    log.info(
        "loaded %d files: %d new, %d updated, %d unchanged, %d problems",
        report.files,
        report.new,
        report.updated,
        report.unchanged,
        len(report.problems),
    )
    return report
