"""Loading digest files into the store."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from paperbot.config import CorpusSettings
from paperbot.core.corpus import (
    PARSER_VERSION,
    CorpusLimits,
    decode_page,
    loaded_files,
    parse_text,
    plan_load,
)
from paperbot.core.models import Paper, PaperColumns, ParsedFile, Problem, VenueCount
from paperbot.core.text import title_key
from paperbot.storage import papers
from paperbot.storage import search_index as index_store
from paperbot.storage.db import Database

log = logging.getLogger(__name__)

# Matched case-insensitively: `PAGE.TXT` is a page too.
CORPUS_SUFFIXES = (".txt", ".md")


def corpus_limits(settings: CorpusSettings) -> CorpusLimits:
    """The configured `corpus.max_*` limits."""
    return CorpusLimits(
        max_file_bytes=int(settings.max_file_mb * 1024 * 1024),
        max_title_chars=settings.max_title_chars,
        max_summary_chars=settings.max_summary_chars,
        max_entries_per_file=settings.max_entries_per_file,
    )


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
                {"file": p.file, "line": p.line, "reason": p.reason}
                for p in self.problems
                if not p.warning
            ],
            "warnings": [
                {"file": p.file, "line": p.line, "reason": p.reason}
                for p in self.problems
                if p.warning
            ],
        }


class CorpusPathError(Exception):
    """A path given to load does not exist or holds no digest files."""


def corpus_files(paths: Iterable[Path]) -> list[Path]:
    """Digest files named directly, or found (sorted) in the folders named."""
    return corpus_listing(paths)[0]


def corpus_listing(paths: Iterable[Path]) -> tuple[list[Path], list[Problem]]:
    """Digest files named directly or found (sorted) in the folders named, and
    a problem for each subfolder (folders are not searched recursively).

    A page is known by its file name (an edited page replaces what it said
    before), so two different files with one name in a single load are
    refused rather than letting one silently replace the other.
    """
    files: list[Path] = []
    skipped: list[Problem] = []
    for path in paths:
        if path.is_dir():
            found, subfolders = _folder_entries(path)
            files.extend(found)
            skipped.extend(
                Problem(f"{sub.name}/", None, SUBFOLDER_SKIPPED, warning=True) for sub in subfolders
            )
        elif path.is_file():
            files.append(path)
        else:
            raise CorpusPathError(f"{path}: no such file or folder")
    return _unique_names(files), skipped


SUBFOLDER_SKIPPED = (
    "a subfolder: not loaded (folders are not searched recursively; name it to load it)"
)


def _folder_entries(folder: Path) -> tuple[list[Path], list[Path]]:
    """(digest files, visible subfolders) of one folder, sorted."""
    try:
        children = sorted(folder.iterdir())
        files = [p for p in children if p.suffix.lower() in CORPUS_SUFFIXES and p.is_file()]
        subfolders = [p for p in children if p.is_dir() and not p.name.startswith(".")]
    except OSError as exc:
        raise CorpusPathError(f"cannot read folder {folder}: {exc.strerror}") from None
    return files, subfolders


def _unique_names(files: list[Path]) -> list[Path]:
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


def _read_one(
    path: Path, default_area: str, known: Mapping[str, str], limits: CorpusLimits
) -> _FileRead:
    try:
        data = _read_within(path, limits.max_file_bytes)
    except OSError as exc:
        return _FileRead(
            path.name, None, Problem(path.name, None, f"cannot read: {exc.strerror}: skipped")
        )
    if data is None:
        size_mb = limits.max_file_bytes / (1024 * 1024)
        reason = f"larger than corpus.max_file_mb ({size_mb:g} MB): skipped"
        return _FileRead(path.name, None, Problem(path.name, None, reason))
    fingerprint = file_fingerprint(data, default_area, limits)
    if known.get(path.name) == fingerprint:
        return _FileRead(path.name, fingerprint, None)
    decoded = decode_page(data, path.name)
    if isinstance(decoded, Problem):
        return _FileRead(path.name, None, decoded)
    text, bad_lines = decoded
    parsed = parse_text(text, path.name, default_area, limits)
    parsed = replace(parsed, problems=tuple(sorted((*bad_lines, *parsed.problems), key=_where)))
    return _FileRead(path.name, fingerprint, parsed)


def _where(problem: Problem) -> int:
    return problem.line or 0


def _read_within(path: Path, max_bytes: int) -> bytes | None:
    """The file's bytes, or None when it is larger than `max_bytes` (read no
    further than that, whatever the file claims its size is)."""
    with path.open("rb") as handle:
        data = handle.read(max_bytes + 1)
    return None if len(data) > max_bytes else data


def file_fingerprint(data: bytes, default_area: str, limits: CorpusLimits | None = None) -> str:
    """Changes when the bytes, the default area, the limits or the parser change."""
    limits = limits or CorpusLimits()
    digest = hashlib.sha256(f"{PARSER_VERSION}\0{default_area}\0{limits}\0".encode())
    digest.update(data)
    return digest.hexdigest()


async def load_corpus(
    db: Database,
    paths: Sequence[Path],
    *,
    default_area: str,
    now: datetime,
    progress: Callable[[Path], object] | None = None,
    limits: CorpusLimits | None = None,
) -> LoadReport:
    """Parse the files and apply the result in one transaction.

    A file whose fingerprint matches the last load is not parsed again; the
    report still counts its entries and papers as unchanged.
    """
    limits = limits or CorpusLimits()
    files, skipped = corpus_listing(paths)
    known = await papers.file_fingerprints(db)
    reads = []
    for path in files:
        reads.append(_read_one(path, default_area, known, limits))
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
    problems = [*skipped, *(r.result for r in reads if isinstance(r.result, Problem))]
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
        limits: CorpusLimits | None = None,
    ) -> LoadReport:
        """`load_corpus` into this app's database."""
        return await load_corpus(
            self._db, paths, default_area=default_area, now=now, progress=progress, limits=limits
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
