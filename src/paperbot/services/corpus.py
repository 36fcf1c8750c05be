"""Loading digest files into the store."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from paperbot.config import CorpusSettings
from paperbot.core.corpus import CorpusLimits
from paperbot.core.load_plan import LoadPlan, loaded_files, plan_load
from paperbot.core.models import FileSource, Paper, PaperColumns, ParsedFile, Problem, VenueCount
from paperbot.core.text import TitleKeys
from paperbot.services import workers
from paperbot.services.corpus_files import FileRead, corpus_listing
from paperbot.services.corpus_spread import at_scale, collector_paused, read_files
from paperbot.services.memory import release_free_memory
from paperbot.services.paper_texts import EarlyTexts, start_early
from paperbot.storage import papers
from paperbot.storage import search_index as index_store
from paperbot.storage.backend import Database

log = logging.getLogger(__name__)

#: Few papers take fewer bytes in a page (the bundled pages: ~140 a line).
EARLY_BYTES_PER_PAPER = 150


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
    # What the load did that the counts do not say (a page replaced from another path, ...).
    notes: tuple[str, ...] = field(default=())
    # Where the time went (the load benchmark's breakdown): reading, parsing
    # and planning; writing the papers.
    parse_seconds: float = field(default=0.0, compare=False)
    store_seconds: float = field(default=0.0, compare=False)

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
            "notes": list(self.notes),
        }


async def load_corpus(
    db: Database,
    paths: Sequence[Path],
    *,
    default_area: str,
    now: datetime,
    progress: Callable[[Path], object] | None = None,
    allow_shrink: bool = False,
    startup: bool = False,
    limits: CorpusLimits | None = None,
    before_write: Callable[[LoadPlan], Awaitable[object]] | None = None,
    spread: bool = False,
) -> LoadReport:
    """Parse the files and apply the result in one transaction (the plan
    handed to `before_write` first). A file whose fingerprint matches the
    last load is not parsed again (the report counts it as unchanged). A
    page that shrinks sharply is held back (its papers kept, reported as a
    problem) unless `allow_shrink`. A `startup` load (the bot's own) also
    holds back a folder file older than a load of its page from elsewhere.
    `spread`: the files are read on both cores (`corpus_spread`)."""
    limits = limits or CorpusLimits()
    started = time.perf_counter()
    key = TitleKeys()  # every step below needs every title's key
    files, skipped = corpus_listing(paths)
    with collector_paused():  # see there: a quarter of the parse's time
        sources = await papers.file_sources(db)
        known, protected = await papers.file_fingerprints(db), sources if startup else {}
        reads, notes = await _read_all(
            files, default_area, known, protected, progress, limits, key, spread
        )
        held_back: list[Problem] = []
        if not allow_shrink:
            reads, held_back = await _hold_back_shrunk(db, reads, key)
        parsed = loaded_files([r.result for r in reads if isinstance(r.result, ParsedFile)])
        names = {f.file for f in parsed}
        notes += _replacements([r for r in reads if r.name in names], sources)
        keys = {key(e.title) for f in parsed for e in f.entries}
        plan = plan_load(await papers.records_touching(db, names, keys), parsed, key)
    planned = time.perf_counter()
    await (before_write or _nothing)(plan)
    await papers.apply_load(
        db,
        plan,
        now,
        _fingerprints(reads, names),
        {r.name: str(r.path) for r in reads if r.name in names},
    )
    same_entries, same_keys = await papers.file_contents(
        db, {r.name for r in reads if r.result is None}
    )
    problems: list[Problem] = [
        *skipped,
        *(r.result for r in reads if isinstance(r.result, Problem)),
        *held_back,
    ]
    problems += [p for r in reads if isinstance(r.result, ParsedFile) for p in r.result.problems]
    report = _load_report(len(files), plan, same_entries, same_keys, problems, notes)
    return replace(report, parse_seconds=planned - started, store_seconds=_since(planned))


async def _nothing(plan: LoadPlan) -> None:
    pass


def _since(start: float) -> float:
    return time.perf_counter() - start


def _load_report(
    file_count: int,
    plan: LoadPlan,
    same_entries: int,
    same_keys: set[str],
    problems: list[Problem],
    notes: list[str],
) -> LoadReport:
    """Count what a load did; files left unparsed count as unchanged."""
    entries = plan.entries_read + same_entries
    report = LoadReport(
        files=file_count,
        entries=entries,
        new=len(plan.inserts),
        updated=len(plan.updates),
        unchanged=plan.unchanged + len(same_keys - plan.touched),
        removed=len(plan.removals),
        duplicates_merged=entries - len(plan.touched | same_keys),
        problems=tuple(problems),
        notes=tuple(notes),
    )
    log.info(
        "loaded %d files: %d new, %d updated, %d unchanged, %d removed, %d problems",
        report.files,
        report.new,
        report.updated,
        report.unchanged,
        report.removed,
        len(report.problems),
    )
    return report


async def _read_all(
    files: Sequence[Path],
    default_area: str,
    known: Mapping[str, str],
    protected: Mapping[str, FileSource],
    progress: Callable[[Path], object] | None,
    limits: CorpusLimits,
    key: TitleKeys,
    spread: bool,
) -> tuple[list[FileRead], list[str]]:
    """Read every file (`spread`: on both cores, `corpus_spread`); a file
    older than a load of its page from elsewhere (`protected`: given for a
    start-up load) is held back with a warning."""
    reads = await read_files(
        files, default_area, known, limits, key, spread=spread, progress=progress
    )
    notes = []
    for index, read in enumerate(reads):
        newer = _newer_load_elsewhere(read, protected.get(read.name))
        if newer is not None:
            log.warning("%s", newer)
            notes.append(newer)
            reads[index] = read.held()
    return reads, notes


def _fingerprints(reads: Sequence[FileRead], applied: Collection[str]) -> dict[str, str]:
    """Fingerprints to store for the files applied. A file with problems gets
    an empty one, so the next load reads it again and reports the problems
    again: the exit code describes the corpus, not whether this run parsed it."""
    return {
        r.name: r.fingerprint if isinstance(r.result, ParsedFile) and not r.result.problems else ""
        for r in reads
        if r.fingerprint and r.name in applied
    }


def shrink_reason(before: Collection[str], after: Collection[str]) -> str | None:
    """Why a page going from the paper keys `before` to `after` is held back:
    it is empty now, or lost more than half of the papers it gave last time."""
    if not before:
        return None
    lost = len(set(before) - set(after))
    if after and lost * 2 <= len(before):
        return None
    return (
        f"shrinks from {len(before)} papers to {len(after)} ({lost} would be removed): "
        "not applied, its papers are kept; if that is intended, load it with --allow-shrink"
    )


async def _hold_back_shrunk(
    db: Database, reads: list[FileRead], key: TitleKeys
) -> tuple[list[FileRead], list[Problem]]:
    """Hold back every page that shrinks sharply, with a problem naming it."""
    pages = {
        f.file: f
        for f in loaded_files([r.result for r in reads if isinstance(r.result, ParsedFile)])
    }
    if not pages:
        return reads, []
    before = await papers.keys_by_file(db, pages)
    kept: list[FileRead] = []
    problems: list[Problem] = []
    for read in reads:
        page = pages.get(read.name)
        had = before.get(read.name, set())
        # A page new to the store cannot shrink: its keys are not needed.
        after = {key(e.title) for e in page.entries} if page and had else set()
        reason = shrink_reason(had, after) if page else None
        if reason is None:
            kept.append(read)
            continue
        log.warning("%s: %s", read.path, reason)
        problems.append(Problem(read.name, None, reason))
        kept.append(read.held())
    return kept, problems


def _newer_load_elsewhere(read: FileRead, source: FileSource | None) -> str | None:
    """Why a start-up load must not apply this changed folder file: the page
    was loaded by hand from another path after the file last changed."""
    if not isinstance(read.result, ParsedFile) or source is None:
        return None
    if source.path == str(read.path):
        return None
    changed = datetime.fromtimestamp(read.path.stat().st_mtime, UTC)
    if changed >= source.loaded_at:
        return None
    return (
        f"start-up load keeps {read.name} as loaded from {source.path} at "
        f"{source.loaded_at:%Y-%m-%d %H:%M} UTC: {read.path} is older "
        f"(changed {changed:%Y-%m-%d %H:%M} UTC); to apply it, run `paperbot load {read.path}`"
    )


def _replacements(applied: Sequence[FileRead], sources: Mapping[str, FileSource]) -> list[str]:
    """One note, also logged, per page now replaced from a different path."""
    notes = []
    for read in applied:
        source = sources.get(read.name)
        if source is not None and source.path != str(read.path):
            note = (
                f"replacing {read.name} loaded from {source.path} "
                f"({source.loaded_at:%Y-%m-%d %H:%M} UTC) with {read.path}"
            )
            log.info("%s", note)
            notes.append(note)
    return notes


class CorpusService:
    """The loaded papers: loading digest files, and reading what is stored."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._early: EarlyTexts | None = None

    async def load(
        self,
        paths: Sequence[Path],
        *,
        default_area: str,
        now: datetime,
        progress: Callable[[Path], object] | None = None,
        allow_shrink: bool = False,
        startup: bool = False,
        limits: CorpusLimits | None = None,
        early_texts: bool = False,
    ) -> LoadReport:
        """`load_corpus` into this app's database. With `early_texts` (a load
        that prepares the index and topics next: `paperbot load`), the new
        papers of a first load at scale are normalised in the worker
        processes while they are written (`take_early_texts`)."""
        self.discard_early_texts()
        # At scale, `paperbot load` (the one caller with `early_texts`, whose
        # loop has nothing else to do) parses on both cores.
        spread = early_texts and at_scale(paths, EARLY_BYTES_PER_PAPER)
        if spread and await papers.paper_count(self._db) == 0:
            workers.warm_up()  # its imports overlap the parse
        report = await load_corpus(
            self._db,
            paths,
            default_area=default_area,
            now=now,
            progress=progress,
            allow_shrink=allow_shrink,
            startup=startup,
            limits=limits,
            before_write=self._start_early if early_texts else None,
            spread=spread,
        )
        if self._early is not None:
            # The parsed pages and the plan, freed, handed back now: the
            # worker processes normalising the texts are still running.
            release_free_memory()
        return report

    async def _start_early(self, plan: LoadPlan) -> None:
        # Into an empty corpus only: then the stored papers are likely the
        # planned inserts in order (checked before use), and both builds
        # start from scratch and need every text.
        if (
            len(plan.inserts) >= workers.WORKER_THRESHOLD
            and await papers.paper_count(self._db) == 0
        ):
            self._early = start_early(plan.inserts)

    def take_early_texts(self) -> EarlyTexts | None:
        """What the last `load(early_texts=True)` started, once."""
        early, self._early = self._early, None
        return early

    def discard_early_texts(self) -> None:
        if self._early is not None:
            self._early.discard()
            self._early = None

    async def paper_count(self) -> int:
        return await papers.paper_count(self._db)

    async def version(self) -> int:
        """The corpus version: changes whenever a load changes any paper."""
        return await papers.corpus_version(self._db)

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
