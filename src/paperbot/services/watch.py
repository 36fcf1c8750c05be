"""Following the corpus while the bot runs: new or changed pages in the
corpus folder are loaded in the background, and a load by someone else (an
operator's `paperbot load`) is noticed by the corpus version changing.

A poll compares a listing of the folder (names, sizes, modification times:
no file is read unless one of them changed), then loads with the rules of a
start-up load (the shrink guard, and a page loaded by hand from elsewhere is
not reverted by an older copy in the folder). After any change the search
index and the topic matches are brought up to date (in the worker process);
searches meanwhile are answered from the previous index.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from paperbot.services.corpus import LoadReport, corpus_limits
from paperbot.services.corpus_files import CorpusPathError, corpus_files
from paperbot.services.sources import load_sources
from paperbot.storage.db import StorageError

if TYPE_CHECKING:
    from paperbot.services.app import App

log = logging.getLogger(__name__)

Listing = tuple[tuple[str, int, int], ...]
"""(path, size, modification time in ns) of every digest file, sorted."""


def folder_listing(paths: Sequence[Path]) -> Listing:
    """What a poll compares: cheap to take, changes when a page does."""
    found = []
    for path in corpus_files(paths):
        try:
            stat = path.stat()
        except OSError:  # removed between the listing and the stat
            continue
        found.append((str(path), stat.st_size, stat.st_mtime_ns))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class PollResult:
    """What one poll saw: the folder's load (None when the folder did not
    change) and whether the corpus version moved (by that load or another)."""

    report: LoadReport | None
    version_changed: bool


class CorpusWatcher:
    """Polls `corpus.path` every `corpus.poll_seconds` (0: never)."""

    def __init__(self, app: App, clock: Callable[[], datetime]) -> None:
        self._app = app
        self._clock = clock
        self._listing: Listing | None = None
        self._version: int | None = None
        self._sources_due = 0.0  # loop time of the next fetch of corpus.sources

    @property
    def interval(self) -> float:
        return self._app.settings.corpus.poll_seconds

    @property
    def has_work(self) -> bool:
        """Whether `run` has anything to do: a folder to poll or URLs to fetch."""
        return self.interval > 0 or bool(self._app.settings.corpus.sources)

    @property
    def _sleep(self) -> float:
        """Seconds between two polls: the folder's interval, or with the
        folder not polled (0) the sources' own."""
        settings = self._app.settings.corpus
        return self.interval if self.interval > 0 else settings.sources_poll_seconds

    async def start_from_current(self) -> None:
        """Take the folder and the corpus version as they are now (the
        start-up load has just applied them)."""
        self._listing = self._try_listing()
        self._version = await self._app.corpus.version()

    async def run(self) -> None:
        """Poll until cancelled; a failed poll is logged and tried again.

        `corpus.sources` are fetched once at once (the start-up's fetch: a
        page published while the bot was down should not wait an interval),
        then on their schedule. Run as a background task, this never delays
        "ready"."""
        if not self.has_work:
            return
        if self._version is None:
            await self.start_from_current()
        if self._app.settings.corpus.sources:
            await self._guarded_poll()
        while True:
            await asyncio.sleep(self._sleep)
            await self._guarded_poll()

    async def _guarded_poll(self) -> None:
        try:
            await self.poll()
        except (StorageError, OSError) as exc:
            log.warning("corpus watch: %s; trying again in %gs", exc, self._sleep)
        except Exception:  # the watcher must outlive any one bad poll
            log.exception("corpus watch failed; trying again in %gs", self._sleep)

    async def poll(self) -> PollResult:
        """Load the folder if it changed and the URL sources when due, then
        follow any change of the corpus version."""
        report = await self._load_folder_if_changed() if self.interval > 0 else None
        await self._load_sources_if_due()
        version = await self._app.corpus.version()
        changed = self._version is not None and version != self._version
        if changed:
            if report is None or not _changes(report):
                count = await self._app.corpus.paper_count()
                log.info(
                    "corpus version %s -> %d by another load: %d papers now; updating",
                    self._version,
                    version,
                    count,
                )
            await self._follow()
        self._version = version
        return PollResult(report, changed)

    async def _load_folder_if_changed(self) -> LoadReport | None:
        listing = self._try_listing()
        if listing is None or listing == self._listing:
            return None
        settings = self._app.settings.corpus
        report = await self._app.corpus.load(
            [settings.path],
            default_area=settings.default_area,
            now=self._clock(),
            # The start-up rules: the shrink guard holds back an emptied
            # page, and an older folder copy never reverts a newer load of
            # that page made by hand from elsewhere.
            startup=True,
            limits=corpus_limits(settings),
        )
        previous, self._listing = self._listing or (), listing
        if _changes(report):
            log.info("corpus watch: %s (%s)", describe(report), listing_diff(previous, listing))
        for problem in report.problems:
            log.warning("corpus watch: %s", problem)
        return report

    async def _load_sources_if_due(self) -> None:
        """Fetch `corpus.sources` every `corpus.sources_poll_seconds`; a
        source that fails is logged by the fetcher and tried next time."""
        settings = self._app.settings.corpus
        now = asyncio.get_running_loop().time()
        if not settings.sources or now < self._sources_due:
            return
        self._sources_due = now + settings.sources_poll_seconds
        report = await load_sources(self._app, settings.sources, now=self._clock())
        if report is not None and _changes(report):
            log.info("corpus sources: %s", describe(report))

    def _try_listing(self) -> Listing | None:
        try:
            return folder_listing([self._app.settings.corpus.path])
        except CorpusPathError as exc:
            log.warning("corpus watch: %s", exc)
            return None

    async def _follow(self) -> None:
        """Bring the search index and the topic matches to the new version."""
        self._app.search.forget_version()
        prepared = await self._app.prepare()
        log.info(
            "corpus watch: search index %s for %d papers in %.1fs",
            prepared.index_source,
            prepared.papers,
            prepared.seconds,
        )


def _changes(report: LoadReport) -> int:
    return report.new + report.updated + report.removed


def describe(report: LoadReport) -> str:
    """One log line: what a load changed."""
    return (
        f"{report.files} files: {report.new} new, {report.updated} updated, "
        f"{report.removed} removed papers"
    )


def listing_diff(before: Listing, after: Listing) -> str:
    """Which files appeared, changed or went away between two listings."""
    old = {path: (size, mtime) for path, size, mtime in before}
    new = {path: (size, mtime) for path, size, mtime in after}
    parts = [
        ("added", [p for p in new if p not in old]),
        ("changed", [p for p in new if p in old and new[p] != old[p]]),
        ("gone", [p for p in old if p not in new]),
    ]
    return (
        "; ".join(
            f"{label}: {', '.join(Path(p).name for p in paths)}" for label, paths in parts if paths
        )
        or "no file changes"
    )
