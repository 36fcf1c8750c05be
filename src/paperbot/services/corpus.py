"""Loading digest files into the store."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from paperbot.core.corpus import PARSER_VERSION, decode, loaded_files, parse_text, plan_load
from paperbot.core.models import Paper, PaperColumns, ParsedFile, Problem, VenueCount
from paperbot.core.text import title_key
from paperbot.storage import papers
from paperbot.storage import search_index as index_store
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
    """Digest files named directly, or found (sorted) in the folders named.

    A page is known by its file name (an edited page replaces what it said
    before), so two different files with one name in a single load are
    refused rather than letting one silently replace the other.
    """
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
    unique = list(dict.fromkeys(f.resolve() for f in files))
    names: dict[str, Path] = {}
    for file in unique:
        if file.name in names:
            raise CorpusPathError(
                f"{names[file.name]} and {file} have the same name: a page is known by its "
                "file name, so rename one or load them separately"
            )
        names[file.name] = file
    return unique


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

    A file whose fingerprint matches the last load is not parsed again; the
    report still counts its entries and papers as unchanged.
    """
    files = corpus_files(paths)
    known = await papers.file_fingerprints(db)
    reads = []
    for path in files:
        reads.append(_read_one(path, default_area, known))
        if progress is not None:
            progress(path)
    parsed = loaded_files([r.result for r in reads if isinstance(r.result, ParsedFile)])
    names = {f.file for f in parsed}
    keys = {title_key(e.title) for f in parsed for e in f.entries}
    plan = plan_load(await papers.records_touching(db, names, keys), parsed)
    fingerprints = {r.name: r.fingerprint for r in reads if r.fingerprint and r.name in names}
    await papers.apply_load(db, plan, now, fingerprints)
    same_entries, same_keys = await papers.file_contents(
        db, {r.name for r in reads if r.result is None}
    )
    entries = plan.entries_read + same_entries
    problems = [r.result for r in reads if isinstance(r.result, Problem)]
    problems += [p for r in reads if isinstance(r.result, ParsedFile) for p in r.result.problems]
    report = LoadReport(
        files=len(files),
        entries=entries,
        new=len(plan.inserts),
        updated=len(plan.updates),
        unchanged=plan.unchanged + len(same_keys - plan.touched),
        removed=len(plan.removals),
        duplicates_merged=entries - len(plan.touched | same_keys),
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


class CorpusService:
    """The loaded papers: loading digest files, and reading what is stored."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def load(
        self,
        paths: Sequence[Path],
        *,
        default_area: str,
        now: datetime,
        progress: Callable[[Path], object] | None = None,
    ) -> LoadReport:
        """`load_corpus` into this app's database."""
        return await load_corpus(
            self._db, paths, default_area=default_area, now=now, progress=progress
        )

    async def paper_count(self) -> int:
        return await papers.paper_count(self._db)

    async def venues(self) -> list[VenueCount]:
        """Loaded venues and years with their paper counts, newest year first."""
        return await papers.venues(self._db)

    async def list_papers(self, venue: str | None = None, year: int | None = None) -> list[Paper]:
        """Papers in id order, optionally for one venue (any case) and/or year."""
        return await papers.list_papers(self._db, venue=venue, year=year)

    async def get_papers(self, ids: Sequence[int]) -> list[Paper]:
        """Papers with these ids, in the order asked (missing ids are skipped)."""
        return await papers.get_papers(self._db, ids)

    async def columns(self) -> PaperColumns:
        """Every paper column-wise, in id order (what an index build reads)."""
        return await index_store.paper_columns(self._db)
