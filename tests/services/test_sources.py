"""Pages and feeds from URLs: conditional fetches, retries, limits, and a
source that goes away keeps its papers."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from paperbot.config import CorpusSettings
from paperbot.services import sources
from paperbot.services.app import App
from paperbot.services.sources import feed_links, load_sources, page_file_name
from tests.support.app import FIXED_NOW, settings_for
from tests.support.page_server import PageServer, Served, atom_feed, digest_page, rss_feed


@pytest.fixture
async def server() -> AsyncIterator[PageServer]:
    pages = PageServer()
    await pages.start()
    yield pages
    await pages.stop()


@pytest.fixture
async def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[App]:
    monkeypatch.setattr(sources, "BACKOFF_SECONDS", 0.01)
    base = settings_for(tmp_path / "db" / "paperbot.sqlite3")
    corpus = CorpusSettings(max_file_mb=0.01, source_timeout_seconds=5.0)
    opened = await App.open(base.model_copy(update={"corpus": corpus}))
    yield opened
    await opened.close()


async def titles(app: App) -> set[str]:
    return {p.title for p in await app.corpus.list_papers(venue="ICML", year=2026)}


async def test_a_page_is_loaded_then_fetched_conditionally(app: App, server: PageServer) -> None:
    server.pages["/icml2026.txt"] = Served(digest_page(["Quasar Lattice Tokenizers"]))
    url = server.url("/icml2026.txt")
    first = await load_sources(app, [url], now=FIXED_NOW)
    assert first is not None
    assert first.new == 1
    second = await load_sources(app, [url], now=FIXED_NOW)
    assert second is not None
    assert second.new == 0
    assert server.requests == [("/icml2026.txt", False), ("/icml2026.txt", True)]
    assert await titles(app) == {"Quasar Lattice Tokenizers"}


@pytest.mark.parametrize("feed", [rss_feed, atom_feed])
async def test_a_feed_loads_the_pages_it_links(app: App, server: PageServer, feed: object) -> None:
    assert callable(feed)
    server.pages["/a.txt"] = Served(digest_page(["Alpha Sparse Routing"]))
    server.pages["/b.txt"] = Served(digest_page(["Beta Curriculum Mixing"]))
    server.pages["/feed.xml"] = Served(
        feed([server.url("/a.txt"), "/b.txt"]), "application/rss+xml"
    )
    report = await load_sources(app, [server.url("/feed.xml")], now=FIXED_NOW)
    assert report is not None
    assert report.new == 2
    assert await titles(app) == {"Alpha Sparse Routing", "Beta Curriculum Mixing"}


async def test_a_source_that_goes_away_keeps_its_papers(
    app: App, server: PageServer, caplog: pytest.LogCaptureFixture
) -> None:
    server.pages["/icml2026.txt"] = Served(digest_page(["Quasar Lattice Tokenizers"]))
    url = server.url("/icml2026.txt")
    await load_sources(app, [url], now=FIXED_NOW)
    await server.stop()
    with caplog.at_level(logging.WARNING, logger="paperbot.services.sources"):
        report = await load_sources(app, [url], now=FIXED_NOW)
    assert report is not None
    assert report.removed == 0
    assert await titles(app) == {"Quasar Lattice Tokenizers"}
    assert "keeping its papers" in caplog.text


async def test_a_server_error_is_retried_with_backoff(app: App, server: PageServer) -> None:
    server.pages["/p.txt"] = Served(digest_page(["Gamma Retry Decoding"]), failures_left=2)
    report = await load_sources(app, [server.url("/p.txt")], now=FIXED_NOW)
    assert report is not None
    assert report.new == 1
    assert len(server.requests) == 3


async def test_a_page_over_the_size_limit_is_refused(
    app: App, server: PageServer, caplog: pytest.LogCaptureFixture
) -> None:
    server.pages["/big.txt"] = Served(digest_page([f"Huge Page Paper {i}" for i in range(400)]))
    with caplog.at_level(logging.WARNING, logger="paperbot.services.sources"):
        report = await load_sources(app, [server.url("/big.txt")], now=FIXED_NOW)
    assert report is None
    assert "larger than corpus.max_file_mb" in caplog.text


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        (b"plain page", "text/plain", None),
        (b"<?xml version='1.0'?><broken", "application/xml", None),
        (rss_feed(["/x.txt"]), "application/rss+xml", ["http://h.test/x.txt"]),
        (atom_feed(["https://o.test/y.txt"]), "", ["https://o.test/y.txt"]),
    ],
)
def test_feed_links(body: bytes, content_type: str, expected: list[str] | None) -> None:
    assert feed_links(body, content_type, "http://h.test/feed.xml") == expected


@pytest.mark.parametrize(
    ("url", "prefix"),
    [
        ("https://example.org/digests/icml2026.txt", "icml2026-"),
        ("https://example.org/", "example.org-"),
        ("https://example.org/a b/c?.txt", "c-"),
    ],
)
def test_page_file_names_are_stable_and_distinct(url: str, prefix: str) -> None:
    name = page_file_name(url)
    assert name.startswith(prefix)
    assert name.endswith(".txt")
    assert name == page_file_name(url)
    assert name != page_file_name(url + "?v=2")
