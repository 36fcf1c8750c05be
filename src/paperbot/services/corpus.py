"""Loading digest files into the store."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from paperbot.core.corpus import decode, parse_text, plan_load
from paperbot.core.models import ParsedFile, Problem
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


def read_files(
    files: Sequence[Path], default_area: str, progress: Callable[[Path], object] | None = None
) -> list[ParsedFile | Problem]:
    """Read and parse each file; an unreadable file becomes a Problem."""
    results: list[ParsedFile | Problem] = []
    for path in files:
        results.append(_read_one(path, default_area))
        if progress is not None:
            progress(path)
    return results


def _read_one(path: Path, default_area: str) -> ParsedFile | Problem:
    try:
        data = path.read_bytes()
    except OSError as exc:
        return Problem(path.name, None, f"cannot read: {exc.strerror}: skipped")
    text = decode(data, path.name)
    if isinstance(text, Problem):
        return text
    return parse_text(text, path.name, default_area)


async def load_corpus(
    db: Database,
    paths: Sequence[Path],
    *,
    default_area: str,
    now: datetime,
    progress: Callable[[Path], object] | None = None,
) -> LoadReport:
    """Parse the files and apply the result in one transaction."""
    files = corpus_files(paths)
    results = read_files(files, default_area, progress)
    parsed = [r for r in results if isinstance(r, ParsedFile)]
    problems = [r for r in results if isinstance(r, Problem)]
    problems += [p for f in parsed for p in f.problems]
    plan = plan_load(await papers.existing_records(db), parsed)
    await papers.apply_load(db, plan, now)
    report = LoadReport(
        files=len(files),
        entries=plan.entries_read,
        new=len(plan.inserts),
        updated=len(plan.updates),
        unchanged=plan.unchanged,
        removed=len(plan.removals),
        duplicates_merged=plan.duplicates_merged,
        problems=tuple(problems),
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
