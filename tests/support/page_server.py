"""A local HTTP server on 127.0.0.1 serving digest pages and feeds, with
ETag/Last-Modified, for the URL-source tests (services, CLI, e2e)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from aiohttp import web

LAST_MODIFIED = "Mon, 30 Nov 2026 08:00:00 GMT"


@dataclass
class Served:
    body: bytes
    content_type: str = "text/plain; charset=utf-8"
    failures_left: int = 0  # answer 503 this many times first


@dataclass
class PageServer:
    """`pages[path] = Served(...)`; `requests` records (path, conditional)."""

    pages: dict[str, Served] = field(default_factory=dict)
    requests: list[tuple[str, bool]] = field(default_factory=list)
    runner: web.AppRunner | None = None
    port: int = 0

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/{tail:.*}", self._handle)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", self.port)
        await site.start()
        self.port = int(self.runner.addresses[0][1])

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        conditional = "If-None-Match" in request.headers
        self.requests.append((request.path, conditional))
        served = self.pages.get(request.path)
        if served is None:
            return web.Response(status=404)
        if served.failures_left > 0:
            served.failures_left -= 1
            return web.Response(status=503)
        etag = '"' + hashlib.sha256(served.body).hexdigest()[:16] + '"'
        if request.headers.get("If-None-Match") == etag:
            return web.Response(status=304)
        headers = {
            "ETag": etag,
            "Last-Modified": LAST_MODIFIED,
            "Content-Type": served.content_type,
        }
        return web.Response(body=served.body, headers=headers)


def digest_page(titles: list[str], venue: str = "ICML2026") -> bytes:
    lines = [f"{t}: 这篇论文研究{t}的训练方法与缩放规律。" for t in titles]
    header = f"📚 预训练¶\n\n🧠 {venue} · {len(titles)} 篇论文解读\n\n"
    return (header + "\n".join(lines) + "\n").encode("utf-8")


def rss_feed(links: list[str]) -> bytes:
    items = "".join(f"<item><title>p</title><link>{link}</link></item>" for link in links)
    return (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>digests</title>'
        f"{items}</channel></rss>"
    ).encode()


def atom_feed(links: list[str]) -> bytes:
    entries = "".join(f'<entry><title>p</title><link href="{link}"/></entry>' for link in links)
    return (
        f'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom">{entries}</feed>'
    ).encode()


@contextlib.contextmanager
def served_in_thread(server: PageServer) -> Iterator[PageServer]:
    """Run `server` on a loop of its own in a thread (for code that runs
    `asyncio.run` itself, such as the CLI)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(server.start(), loop).result(10)
    try:
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
