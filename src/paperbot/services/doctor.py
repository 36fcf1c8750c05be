"""`paperbot doctor`: is the database sound, current and consistent?"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path

from paperbot.core.search import INDEX_FORMAT
from paperbot.storage import health, index_segments, papers
from paperbot.storage.db import CorruptDatabase, Database, available_migrations

log = logging.getLogger(__name__)


@dataclass
class DoctorReport:
    """What was checked; `problems` empty means healthy."""

    database: str
    integrity: str = "not checked"
    schema_version: int | None = None
    code_schema_version: int = field(default_factory=lambda: len(available_migrations()))
    corpus_version: int | None = None
    search_index_version: int | None = None
    retired_papers: int | None = None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


async def diagnose(path: Path) -> DoctorReport:
    """Check the file read-only. Raises CorruptDatabase (or StorageError) when
    it cannot be read as a database at all; damage inside is a problem found."""
    db = await Database.open_read_only(path)
    report = DoctorReport(database=str(path))
    try:
        # The header first: if even that cannot be read, the file cannot be opened.
        await _check_schema(db, report)
        await _check_integrity(db, report)
        if report.schema_version == report.code_schema_version:
            await _check_contents(db, report)
    except CorruptDatabase as exc:
        if report.schema_version is None:
            # Not even the header and schema could be read: it cannot be opened.
            raise
        detail = str(exc.__cause__ or exc)
        report.integrity = report.integrity if report.integrity != "not checked" else detail
        report.problems.append(f"damaged, checks stopped ({detail}): restore the last backup")
    finally:
        await db.close()
    return report


async def _check_integrity(db: Database, report: DoctorReport) -> None:
    found = await health.integrity_check(db)
    report.integrity = "; ".join(" ".join(line.split()) for line in found)
    if found != ["ok"]:
        report.problems.append(
            f"integrity_check failed ({report.integrity}): restore the last backup"
        )


async def _check_schema(db: Database, report: DoctorReport) -> None:
    report.schema_version = await health.schema_version(db)
    code = report.code_schema_version
    if report.schema_version > code:
        report.problems.append(
            f"schema version {report.schema_version} is newer than this paperbot ({code}): "
            "upgrade paperbot"
        )
    elif report.schema_version < code:
        report.notes.append(
            f"schema version {report.schema_version}, this paperbot's is {code}: the next "
            "paperbot command upgrades it (contents not checked until then)"
        )


async def _check_contents(db: Database, report: DoctorReport) -> None:
    report.corpus_version = await papers.corpus_version(db)
    report.retired_papers = await health.retired_count(db)
    # The base and its segments (an append stores only its segment).
    state = await index_segments.stored_state(db, "index")
    stored = (state.version, state.format) if state is not None else None
    report.search_index_version = stored[0] if stored else None
    if stored is None:
        report.notes.append("no stored search index: the first search builds it")
    elif stored[0] > report.corpus_version:
        report.problems.append(
            f"search index says corpus version {stored[0]}, but the corpus is at "
            f"{report.corpus_version}: the index does not belong to this corpus"
        )
    elif stored[0] < report.corpus_version or stored[1] != INDEX_FORMAT:
        report.notes.append("the stored search index is stale: the next search rebuilds it")
    report.problems += await health.orphan_history(db)
    report.problems += [f"broken reference: {v}" for v in await health.foreign_key_violations(db)]
