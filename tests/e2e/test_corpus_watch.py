"""The corpus grows while the bot runs: a page dropped into the corpus folder
is found by `/search` within the poll interval (plus the update), with the
real discord.py client against the fake Discord."""

from __future__ import annotations

import asyncio
import logging
import shutil
import time
from pathlib import Path

import pytest

from paperbot.config import BUNDLED_CORPUS, CorpusSettings, Settings
from paperbot.services import workers
from tests.e2e.test_load import DEADLINE, QUERIES, ack_seconds, summary
from tests.fake_discord import FakeDiscord, FakeUser
from tests.support.e2e import E2E, StartBot
from tests.support.page_server import PageServer, Served, digest_page

POLL_SECONDS = 0.5
BURST = 40
# The poll, the load of one small page and the index rebuild of the bundled corpus.
WITHIN = POLL_SECONDS + 8.0
PAGE = (
    "📚 预训练¶\n\n🧠 NeurIPS2025 · 1 篇论文解读\n\n"
    "Quasar Lattice Tokenizers: 这篇论文提出类星体格点分词器，用于多语言预训练。\n"
)


def watched_settings(settings: Settings, folder: Path) -> Settings:
    shutil.copytree(BUNDLED_CORPUS, folder)
    corpus = CorpusSettings(path=folder, poll_seconds=POLL_SECONDS)
    return settings.model_copy(update={"corpus": corpus})


async def search_titles(e2e: E2E, query: str, user: FakeUser) -> str:
    result = await e2e.slash("search", query=query, user=user)
    return " ".join(str(embed.get("title", "")) for embed in result.embeds)


async def test_a_page_dropped_into_the_folder_is_found_by_search(
    start_bot: StartBot, fake_discord: FakeDiscord, e2e_settings: Settings, tmp_path: Path
) -> None:
    settings = watched_settings(e2e_settings, tmp_path / "corpus")
    e2e = E2E(fake_discord, await start_bot(settings))
    assert "Quasar Lattice" not in await search_titles(e2e, "quasar lattice", e2e.member)
    (tmp_path / "corpus" / "new-week.txt").write_text(PAGE, encoding="utf-8")
    dropped = time.monotonic()
    found_after = None
    attempt = 0
    while time.monotonic() - dropped < WITHIN:
        attempt += 1
        # A new user each time: the per-user cooldown must not answer instead.
        titles = await search_titles(e2e, "quasar lattice", FakeUser(name=f"r{attempt}"))
        if "Quasar Lattice Tokenizers" in titles:
            found_after = time.monotonic() - dropped
            break
        await asyncio.sleep(0.2)
    assert found_after is not None, f"not found within {WITHIN}s"
    print(f"\nfound by /search {found_after:.2f}s after the page was dropped")


async def wait_for_title(e2e: E2E, query: str, title: str, within: float) -> float | None:
    """Seconds until `/search query` shows `title`, or None."""
    start = time.monotonic()
    attempt = 0
    while time.monotonic() - start < within:
        attempt += 1
        titles = await search_titles(e2e, query, FakeUser(name=f"u{attempt}"))
        if title in titles:
            return time.monotonic() - start
        await asyncio.sleep(0.2)
    return None


async def test_a_page_from_a_url_is_found_and_outlives_its_server(
    start_bot: StartBot,
    fake_discord: FakeDiscord,
    e2e_settings: Settings,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = PageServer()
    server.pages["/icml2026.txt"] = Served(digest_page(["Obsidian Curriculum Distillation"]))
    await server.start()
    try:
        settings = watched_settings(e2e_settings, tmp_path / "corpus")
        corpus = settings.corpus.model_copy(
            update={"sources": [server.url("/icml2026.txt")], "sources_poll_seconds": 1.0}
        )
        e2e = E2E(fake_discord, await start_bot(settings.model_copy(update={"corpus": corpus})))
        found = await wait_for_title(e2e, "obsidian curriculum", "Obsidian Curriculum", WITHIN)
        assert found is not None, "the page from the URL was not found"
    finally:
        await server.stop()
    with caplog.at_level(logging.WARNING, logger="paperbot.services.sources"):
        for _ in range(40):  # the next fetch (1 s later) fails: logged, not fatal
            if "keeping its papers" in caplog.text:
                break
            await asyncio.sleep(0.2)
    assert "keeping its papers" in caplog.text
    again = await wait_for_title(e2e, "obsidian curriculum", "Obsidian Curriculum", 3.0)
    assert again is not None, "the papers of a source that went away must stay"
    assert not e2e.bot.is_closed()


async def test_searches_during_a_page_arriving_are_all_acknowledged(
    start_bot: StartBot,
    fake_discord: FakeDiscord,
    e2e_settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every build in the worker process, as at scale.
    monkeypatch.setattr(workers, "WORKER_THRESHOLD", 1)
    settings = watched_settings(e2e_settings, tmp_path / "corpus")
    e2e = E2E(fake_discord, await start_bot(settings))
    fake_discord.ack_deadline = DEADLINE
    (tmp_path / "corpus" / "new-week.txt").write_text(PAGE, encoding="utf-8")
    await asyncio.sleep(POLL_SECONDS)  # the watcher is loading and rebuilding now
    # Fewer than the 200 of test_load.py: the point is the state (a load and a
    # rebuild under way), and the shared test machine is slow enough already.
    users = [FakeUser(name=f"reader{i}") for i in range(BURST // 5)]
    results = [
        await e2e.fake.slash(
            "search",
            user=users[i % len(users)],
            guild=e2e.guild,
            wait=False,
            query=QUERIES[i % len(QUERIES)],
        )
        for i in range(BURST)
    ]
    await asyncio.gather(*(e2e.fake.wait_answered(r, within=30) for r in results))
    acks = ack_seconds(results)
    print("\n" + summary("/search while a page arrives", acks))
    assert len(acks) == BURST
    assert acks[-1] <= DEADLINE
    texts = [r.text() for r in results]
    assert not any("error id" in t for t in texts)
    found = await wait_for_title(e2e, "quasar lattice", "Quasar Lattice Tokenizers", WITHIN)
    assert found is not None
