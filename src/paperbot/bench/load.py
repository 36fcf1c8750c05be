"""Load N synthetic papers into a fresh database as `paperbot load` does, then reload them.

`paperbot load` is ready when it ends: the papers are stored, and so are the
search index and the topic corpus with every vocabulary topic's matches. The
load runs in a fresh process (its peak memory is the load's alone, worker
processes sampled with it) and reports where the time went: parse (read,
parse, merge, plan), store (the papers written), search index, topic
matches. Baseline in the same run: plain sqlite3 `executemany` of the same
rows, the least any loader must do (`load_vs_baseline` is the whole
`paperbot load` over it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from paperbot.argtypes import positive_int
from paperbot.bench.memory import TreePeak, peak_rss_mb
from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.clock import utc_now
from paperbot.config import DatabaseSettings, Settings
from paperbot.services.app import App


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--papers", type=positive_int, default=10_000, help="papers to generate")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    papers = synthetic_papers(args.papers)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_corpus(folder / "corpus", papers)
        baseline_s = _baseline_insert(folder / "baseline.sqlite3", papers)
        del papers
        figures = _load_in_fresh_process(folder / "bench.sqlite3", folder / "corpus")
    return {
        "papers": figures["papers"],
        **figures,
        "baseline_insert_s": baseline_s,
        "load_vs_baseline": figures["total_s"] / baseline_s,
        "bench_peak_rss_mb": peak_rss_mb(),
    }


def _load_in_fresh_process(db_path: Path, corpus: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "paperbot.bench.load", str(db_path), str(corpus)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


async def _load(db_path: Path, corpus: Path) -> dict[str, Any]:
    """What `paperbot load` does (in the child process), timed by stage."""
    app = await App.open(Settings(database=DatabaseSettings(path=db_path)))
    try:
        with TreePeak() as tree:
            start = time.perf_counter()
            report = await app.corpus.load(
                [corpus], default_area="预训练", now=utc_now(), limits=BENCH_LIMITS
            )
            prepared = await app.prepare(keep_topics=False)
            total = time.perf_counter() - start
        # The load's own peak: the reload below runs with this load's index
        # still in memory, as no `paperbot load` process would.
        load_peak = peak_rss_mb()
        reload_start = time.perf_counter()
        await app.corpus.load([corpus], default_area="预训练", now=utc_now(), limits=BENCH_LIMITS)
        again = await app.prepare(keep_topics=False)
        reload_s = time.perf_counter() - reload_start
        stored = await app.corpus.paper_count()
    finally:
        await app.close()
    return {
        "papers": stored,
        "total_s": total,
        "parse_s": report.parse_seconds,
        "store_s": report.store_seconds,
        "search_index_s": prepared.index_seconds,
        "topic_matches_s": prepared.topics_seconds,
        "shared_texts_s": prepared.texts_seconds,
        "prepare_s": prepared.seconds,
        "index": prepared.index_source,
        "topics": prepared.topics_source,
        "reload_unchanged_s": reload_s,
        "reload_topics": again.topics_source,
        "reload_peak_rss_mb": peak_rss_mb(),
        "peak_rss_mb": load_peak,
        "worker_peak_rss_mb": tree.worker_mb,
        "tree_peak_rss_mb": tree.total_mb,
    }


def _baseline_insert(path: Path, papers: list[tuple[str, str]]) -> float:
    start = time.perf_counter()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(
        "CREATE TABLE p (id INTEGER PRIMARY KEY, key TEXT UNIQUE, title TEXT, summary TEXT)"
    )
    with conn:
        conn.executemany(
            "INSERT INTO p (key, title, summary) VALUES (?, ?, ?)",
            [(t.casefold(), t, s) for t, s in papers],
        )
    conn.close()
    return time.perf_counter() - start


if __name__ == "__main__":
    figures = asyncio.run(_load(Path(sys.argv[1]), Path(sys.argv[2])))
    sys.stdout.write(json.dumps(figures) + "\n")
