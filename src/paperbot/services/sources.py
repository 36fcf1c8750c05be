"""Digest pages from URLs (`corpus.sources`, `paperbot load URL`): an HTTP(S)
page, or an RSS/Atom feed whose items link to pages.

Each page is fetched with `If-None-Match`/`If-Modified-Since` (the
validators are kept in the app state), a timeout, a size limit
(`corpus.max_file_mb`) and a few retries with backoff, then saved as a file
in a folder beside the database, named after its URL; loading that file
applies every rule of a folder load (parser, limits, fingerprints, shrink
guard). A source that cannot be reached is logged and tried again at the
next poll; its saved copy stays, so its papers stay.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING
from xml.etree import ElementTree

import aiohttp
import yarl

from paperbot.services.corpus import LoadReport, corpus_limits
from paperbot.services.state import StateService

if TYPE_CHECKING:
    from paperbot.services.app import App

log = logging.getLogger(__name__)

RETRIES = 3
BACKOFF_SECONDS = 0.5
MAX_FEED_ITEMS = 50
_STATE_PREFIX = "source:"
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
_ATOM = "{http://www.w3.org/2005/Atom}"


class SourceError(Exception):
    """A URL that could not be fetched; `str()` is one line."""


def page_file_name(url: str) -> str:
    """A stable file name per URL: the last path segment (it may carry the
    venue and year) plus a short hash, so two URLs never share a page."""
    parsed = yarl.URL(url)
    stem = _SAFE.sub("-", Path(parsed.path).stem or parsed.host or "page").strip("-")[:60]
    digest = hashlib.sha256(url.encode()).hexdigest()[:10]
    return f"{stem or 'page'}-{digest}.txt"


@dataclass(frozen=True, slots=True)
class Fetched:
    """One response: the body (None when unchanged: 304) and its validators."""

    body: bytes | None
    etag: str | None
    last_modified: str | None
    content_type: str


class SourceFetcher:
    """Fetches source URLs into `folder` (one file per page)."""

    def __init__(
        self,
        state: StateService,
        folder: Path,
        *,
        max_bytes: int,
        timeout_seconds: float,
    ) -> None:
        self._state = state
        self.folder = folder
        self._max_bytes = max_bytes
        self._timeout = aiohttp.ClientTimeout(total=timeout_seconds)

    async def fetch_all(self, urls: Sequence[str]) -> tuple[list[Path], list[str]]:
        """Every source's saved page files (fetched now when changed), and a
        line per source that failed (logged; its previous copy is kept)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        files: list[Path] = []
        failures: list[str] = []
        async with aiohttp.ClientSession(timeout=self._timeout) as session:
            for url in urls:
                try:
                    files += await self._fetch_source(session, url)
                except SourceError as exc:
                    log.warning("source %s: %s; keeping its papers, trying again later", url, exc)
                    failures.append(f"{url}: {exc}")
                    files += await self._known_pages(url)
        return files, failures

    async def _fetch_source(self, session: aiohttp.ClientSession, url: str) -> list[Path]:
        fetched = await self._fetch(session, url)
        if fetched.body is None:  # not modified
            return await self._known_pages(url)
        links = feed_links(fetched.body, fetched.content_type, url)
        if links is None:
            return [self._save(url, fetched)]
        pages = []
        for link in links[:MAX_FEED_ITEMS]:
            try:
                page = await self._fetch(session, link)
            except SourceError as exc:
                log.warning("feed %s item %s: %s; trying again later", url, link, exc)
                pages.append(self._path(link))
                continue
            pages.append(self._save(link, page) if page.body is not None else self._path(link))
        await self._state.set(_STATE_PREFIX + url, json.dumps(_validators(fetched, links)))
        return [p for p in pages if p.is_file()]

    async def _known_pages(self, url: str) -> list[Path]:
        """The pages saved from `url` before (a feed's items, or the page)."""
        stored = json.loads(await self._state.get(_STATE_PREFIX + url) or "{}")
        links = links_of(stored)
        paths = [self._path(link) for link in links] if links else [self._path(url)]
        return [p for p in paths if p.is_file()]

    def _path(self, url: str) -> Path:
        return self.folder / page_file_name(url)

    def _save(self, url: str, fetched: Fetched) -> Path:
        assert fetched.body is not None
        path = self._path(url)
        partial = path.with_suffix(".part")
        partial.write_bytes(fetched.body)
        partial.replace(path)  # a reader never sees half a page
        return path

    async def _fetch(self, session: aiohttp.ClientSession, url: str) -> Fetched:
        """GET with the stored validators, retried with backoff on a
        connection failure, a timeout or a server error."""
        stored = json.loads(await self._state.get(_STATE_PREFIX + url) or "{}")
        headers = {}
        if stored.get("etag"):
            headers["If-None-Match"] = stored["etag"]
        if stored.get("last_modified"):
            headers["If-Modified-Since"] = stored["last_modified"]
        if not self._path(url).is_file() and not stored.get("links"):
            headers = {}  # the saved copy is gone: fetch it whole
        for attempt in range(RETRIES):
            try:
                fetched = await self._get(session, url, headers)
            except (aiohttp.ClientError, TimeoutError, _ServerError) as exc:
                if attempt == RETRIES - 1:
                    raise SourceError(_reason(exc)) from None
                await asyncio.sleep(BACKOFF_SECONDS * 2**attempt)
                continue
            if fetched.body is not None:
                await self._state.set(_STATE_PREFIX + url, json.dumps(_validators(fetched)))
            return fetched
        raise SourceError("no attempt made")  # pragma: no cover - RETRIES >= 1

    async def _get(
        self, session: aiohttp.ClientSession, url: str, headers: dict[str, str]
    ) -> Fetched:
        async with session.get(url, headers=headers) as response:
            if response.status == 304:
                return Fetched(None, None, None, "")
            if response.status >= 500:
                raise _ServerError(f"HTTP {response.status}")
            if response.status != 200:
                raise SourceError(f"HTTP {response.status}")
            body = await self._read_limited(response)
            return Fetched(
                body,
                response.headers.get("ETag"),
                response.headers.get("Last-Modified"),
                response.headers.get("Content-Type", ""),
            )

    async def _read_limited(self, response: aiohttp.ClientResponse) -> bytes:
        """The body, refused past `max_bytes` whatever Content-Length says."""
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.content.iter_chunked(1 << 16):
            size += len(chunk)
            if size > self._max_bytes:
                limit_mb = self._max_bytes / (1024 * 1024)
                raise SourceError(f"larger than corpus.max_file_mb ({limit_mb:g} MB): skipped")
            chunks.append(chunk)
        return b"".join(chunks)


class _ServerError(Exception):
    """A 5xx answer: worth a retry."""


def _reason(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "timed out"
    return str(exc) or type(exc).__name__


def _validators(fetched: Fetched, links: Sequence[str] | None = None) -> dict[str, object]:
    out: dict[str, object] = {"etag": fetched.etag, "last_modified": fetched.last_modified}
    if links is not None:
        out["links"] = list(links)
    return out


def links_of(stored: dict[str, object]) -> list[str] | None:
    links = stored.get("links")
    return [str(link) for link in links] if isinstance(links, list) else None


def feed_links(body: bytes, content_type: str, base: str) -> list[str] | None:
    """The page links of an RSS or Atom feed, or None when `body` is a page."""
    head = body[:512].lstrip()
    if "xml" not in content_type and not head.startswith((b"<?xml", b"<rss", b"<feed")):
        return None
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError:
        return None
    links: list[str] = []
    for item in root.iter("item"):  # RSS
        text = (item.findtext("link") or "").strip()
        if text:
            links.append(text)
    for entry in root.iter(f"{_ATOM}entry"):  # Atom
        for element in entry.iter(f"{_ATOM}link"):
            href = element.get("href")
            if element.get("rel", "alternate") == "alternate" and href:
                links.append(href)
                break
    base_url = yarl.URL(base)
    return [str(base_url.join(yarl.URL(link))) for link in dict.fromkeys(links)]


def sources_folder(app: App) -> Path:
    """Where fetched pages are saved: beside the database."""
    return app.settings.database.path.parent / "sources"


async def fetch_sources(app: App, urls: Sequence[str]) -> tuple[list[Path], list[str]]:
    """Fetch `urls` (pages or feeds) into the sources folder: the saved page
    files (previous copies included for a source that failed) and a line per
    failed source."""
    corpus = app.settings.corpus
    fetcher = SourceFetcher(
        app.state,
        sources_folder(app),
        max_bytes=int(corpus.max_file_mb * 1024 * 1024),
        timeout_seconds=corpus.source_timeout_seconds,
    )
    return await fetcher.fetch_all(urls)


async def load_sources(
    app: App, urls: Sequence[str], *, now: datetime, allow_shrink: bool = False
) -> LoadReport | None:
    """Fetch and load `urls` with every rule of a folder load; None when no
    page could be fetched nor was saved before."""
    files, _failures = await fetch_sources(app, urls)
    if not files:
        return None
    settings = app.settings.corpus
    return await app.corpus.load(
        files,
        default_area=settings.default_area,
        now=now,
        allow_shrink=allow_shrink,
        limits=corpus_limits(settings),
    )
