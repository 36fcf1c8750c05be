"""Cold start with N papers: seconds from process start to ready and to a first result.

Each start is a fresh interpreter doing what `paperbot run` does before it
connects to Discord (open and migrate the database, the start-up load of
the corpus folder, then `App.prepare`: the search index), then one real
search, then the topic matches the bot prepares in the background. Three
starts: a fresh database, a restart (stored index), and the same fresh
start with the builds in a thread (how the bot built them before: the
baseline for the event loop's freedom). A fourth process, on the restarted
database, picks a server digest for `--subscribers` readers (the first pick
after a start: the picking arrays built, then the pick) while the bursts
arrive: the "a digest being picked" state.

While the start-up work runs (to the topic matches), a probe sends `BURST` simultaneous tasks
every half second, each doing what the search command does before it
acknowledges (the index-current check); their worst completion time is
what 200 interactions arriving at once would wait for their
acknowledgement. The floor of any start (importing the packages) is
measured in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from paperbot.argtypes import positive_int
from paperbot.bench import run_child
from paperbot.bench.synthetic import synthetic_papers

BURST = 200
ACK_DEADLINE = 3.0
PROBE_EVERY = 0.5
PAPERS_PER_PAGE = 1000
QUERY = "speculative decoding"


SUBSCRIBERS = 1_000
TOPICS_PER_SUBSCRIBER = 3
GUILD = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--papers", type=positive_int, default=100_000, help="papers to generate")
    parser.add_argument(
        "--subscribers",
        type=positive_int,
        default=SUBSCRIBERS,
        help="readers of the server whose digest is picked during the bursts",
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_pages(folder / "corpus", args.papers)
        floor = _import_floor()
        fresh = _start(folder / "bot.sqlite3", folder / "corpus", "worker")
        restart = _start(folder / "bot.sqlite3", folder / "corpus", "worker")
        threads = _start(folder / "threads.sqlite3", folder / "corpus", "thread")
        picking = _start(folder / "bot.sqlite3", folder / "corpus", f"digest:{args.subscribers}")
    return {
        "papers": args.papers,
        "import_floor_s": floor,
        **{f"fresh_{k}": v for k, v in fresh.items()},
        **{f"restart_{k}": v for k, v in restart.items()},
        **{f"thread_baseline_{k}": v for k, v in threads.items()},
        **{f"digest_pick_{k}": v for k, v in picking.items()},
        "fresh_ready_vs_thread_baseline": fresh["ready_s"] / threads["ready_s"],
        "fresh_worst_ack_vs_thread_baseline": (
            fresh["worst_burst_s"] / max(threads["worst_burst_s"], 1e-9)
        ),
    }


def write_pages(folder: Path, count: int) -> None:
    """`count` papers as line-layout pages of `PAPERS_PER_PAGE` (like a real
    corpus folder: within the default `corpus.max_*` limits)."""
    folder.mkdir(parents=True, exist_ok=True)
    papers = synthetic_papers(count)
    for page, start in enumerate(range(0, count, PAPERS_PER_PAGE)):
        chunk = papers[start : start + PAPERS_PER_PAGE]
        header = f"📚 预训练¶\n\n🧠 NeurIPS2025 · {len(chunk)} 篇论文解读\n\n"
        body = "\n".join(f"{title}: {summary}" for title, summary in chunk)
        (folder / f"page-{page:04d}.txt").write_text(header + body + "\n", encoding="utf-8")


def _import_floor() -> float:
    started = time.time()
    subprocess.run([sys.executable, "-c", "import paperbot.services.app"], check=True)
    return time.time() - started


def _start(db_path: Path, corpus: Path, mode: str) -> dict[str, Any]:
    env = {"PAPERBOT_DB": str(db_path), "PAPERBOT_CORPUS": str(corpus)}
    return run_child("paperbot.bench.coldstart", mode, str(time.time()), env=env)


class BurstProbe:
    """Every `PROBE_EVERY` s, `BURST` tasks at once; the worst completion,
    and each task's time from its burst's start to its acknowledgement."""

    def __init__(self, check: Any) -> None:
        self._check = check
        self.worst = 0.0
        self.bursts = 0
        self.late_bursts = 0
        self.acks: list[float] = []

    async def run(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.gather(*(self._acknowledge(start) for _ in range(BURST)))
            took = time.perf_counter() - start
            self.worst = max(self.worst, took)
            self.bursts += 1
            self.late_bursts += took > ACK_DEADLINE
            await asyncio.sleep(PROBE_EVERY)

    async def _acknowledge(self, start: float) -> None:
        await self._check()
        self.acks.append(time.perf_counter() - start)

    def figures(self) -> dict[str, Any]:
        """The acknowledgements: how many, the worst, p95, share within 3 s."""
        acks = sorted(self.acks)
        if not acks:
            return {"acks": 0}
        return {
            "acks": len(acks),
            "ack_max_s": acks[-1],
            "ack_p95_s": acks[min(len(acks) - 1, int(0.95 * len(acks)))],
            "ack_within_3s_share": sum(a <= ACK_DEADLINE for a in acks) / len(acks),
            "bursts": self.bursts,
            "late_bursts": self.late_bursts,
            "worst_burst_s": self.worst,
        }


async def _serve(mode: str, started: float) -> dict[str, Any]:
    """One start (in the child process): ready, then the first search."""
    from paperbot.clock import utc_now
    from paperbot.config import load_settings
    from paperbot.services import workers
    from paperbot.services.app import App
    from paperbot.services.corpus import corpus_limits

    if mode == "thread":
        workers.WORKER_THRESHOLD = sys.maxsize
    settings = load_settings()
    app = await App.open(settings)
    probe = BurstProbe(app.search.is_current)
    probing = asyncio.create_task(probe.run())
    try:
        report = await app.corpus.load(
            [settings.corpus.path],
            default_area=settings.corpus.default_area,
            now=utc_now(),
            startup=True,
            limits=corpus_limits(settings.corpus),
        )
        loaded = time.time() - started
        prepared = await app.prepare(topics=False)
        ready = time.time() - started
        result = await app.search.search(QUERY, limit=10)
        first = time.time() - started
        # What the bot does next, in the background: the topic matches.
        await app.topics.warm()
        topics_ready = time.time() - started
    finally:
        probing.cancel()
        await app.close()
    return {
        "loaded_s": loaded,
        "ready_s": ready,
        "first_result_s": first,
        "first_result_after_ready_s": first - ready,
        "first_result_hits": len(result.hits),
        "index": prepared.index_source,
        "index_s": prepared.index_seconds,
        "topics_ready_s": topics_ready,
        "new_papers": report.new,
        **probe.figures(),
    }


async def _pick(subscribers: int) -> dict[str, Any]:
    """A server digest picked for `subscribers` readers (in the child
    process, on a database a start already prepared) while bursts arrive."""
    from paperbot.clock import utc_now
    from paperbot.config import load_settings
    from paperbot.services.app import App

    app = await App.open(load_settings())
    try:
        await app.prepare()
        await _subscribe(app, subscribers)
        probe = BurstProbe(app.search.is_current)
        probing = asyncio.create_task(probe.run())
        try:
            start = time.perf_counter()
            first = await app.digest.preview(GUILD, utc_now())
            first_s = time.perf_counter() - start
            start = time.perf_counter()
            await app.digest.preview(GUILD, utc_now())
            second_s = time.perf_counter() - start
        finally:
            probing.cancel()
    finally:
        await app.close()
    return {
        "subscribers": subscribers,
        "picks": len(first.plan.picks),
        "first_pick_s": first_s,
        "second_pick_s": second_s,
        **probe.figures(),
    }


async def _subscribe(app: Any, subscribers: int) -> None:
    """Each reader follows `TOPICS_PER_SUBSCRIBER` vocabulary topics."""
    from paperbot.clock import utc_now

    topics = app.topics.vocabulary.topics
    now = utc_now()
    for user in range(1, subscribers + 1):
        for k in range(TOPICS_PER_SUBSCRIBER):
            topic = topics[(user * 7 + k * 13) % len(topics)]
            await app.subscriptions.subscribe(GUILD, user, topic.key, now)


def _child(mode: str, started: float) -> dict[str, Any]:
    if mode.startswith("digest:"):
        return asyncio.run(_pick(int(mode.partition(":")[2])))
    return asyncio.run(_serve(mode, started))


if __name__ == "__main__":
    figures = _child(sys.argv[1], float(sys.argv[2]))
    sys.stdout.write(json.dumps(figures) + "\n")
