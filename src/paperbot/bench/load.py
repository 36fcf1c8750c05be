"""Load N synthetic papers into a fresh database, then reload them unchanged.

Baseline in the same process: plain sqlite3 `executemany` of the same rows,
the least any loader must do. `load_vs_baseline` is our full load (read,
parse, merge, diff, write) over that. Then `paperbot load` in new processes
(`bench/incremental.py`): the full build of the index and topic matches, and
1% more papers on top (`more_vs_full_*`: time and peak RSS over the full
build's, same run).

`whole_*`: the whole `paperbot load` of the N new papers as the command runs
it (worker processes included) in a fresh process on its own database, with
where the time went: parse (read, parse, merge, plan), store (the papers
written), search index, topic matches (those two side by side, one worker
process each); its peak memory and its worker processes' (sampled); then the
same pages reloaded unchanged. `whole_vs_baseline` is that job over the
plain `executemany`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from paperbot.argtypes import positive_int
from paperbot.bench import incremental, run_child
from paperbot.bench.memory import TreePeak, peak_mb, peak_rss_mb
from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.clock import utc_now
from paperbot.config import DatabaseSettings, Settings
from paperbot.services.app import App, open_database
from paperbot.services.corpus import CorpusService
from paperbot.services.memory import one_arena


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--papers", type=positive_int, default=10_000, help="papers to generate")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    more = max(1, args.papers // 100)
    papers = synthetic_papers(args.papers + more)
    papers, extra = papers[: args.papers], papers[args.papers :]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_corpus(folder / "corpus", papers)
        incremental.write_pages(folder / "more", extra, "more")
        baseline_s = _baseline_insert(folder / "baseline.sqlite3", papers)
        db = await open_database(folder / "bench.sqlite3")
        try:
            corpus = CorpusService(db)
            load_s = await _timed_load(corpus, folder / "corpus")
            reload_s = await _timed_load(corpus, folder / "corpus")
            stored = await corpus.paper_count()
        finally:
            await db.close()
        # `paperbot load` in new processes: the full build (index and topic
        # matches) of the papers just loaded, then 1% more papers on top.
        full = incremental.load_in_fresh_process(
            folder / "bench.sqlite3", folder / "corpus", topics=True
        )
        added = incremental.load_in_fresh_process(
            folder / "bench.sqlite3", folder / "more", topics=True
        )
        whole = _load_in_fresh_process(folder / "whole.sqlite3", folder / "corpus")
    return {
        "papers": stored,
        "load_s": load_s,
        "reload_unchanged_s": reload_s,
        "baseline_insert_s": baseline_s,
        "load_vs_baseline": load_s / baseline_s,
        "peak_rss_mb": peak_rss_mb(),
        **{f"full_build_{k}": v for k, v in full.items()},
        **{f"more_new_process_{k}": v for k, v in added.items()},
        **incremental.ratios(added, full),
        **{f"whole_{k}": v for k, v in whole.items()},
        "whole_vs_baseline": whole["total_s"] / baseline_s,
    }


def _load_in_fresh_process(db_path: Path, corpus: Path) -> dict[str, Any]:
    return run_child("paperbot.bench.load", str(db_path), str(corpus))


async def _load(db_path: Path, corpus: Path) -> dict[str, Any]:
    """What `paperbot load` does (in the child process), timed by stage."""
    one_arena()  # as `paperbot load`
    app = await App.open(Settings(database=DatabaseSettings(path=db_path)))
    try:
        with TreePeak() as tree:
            start = time.perf_counter()
            report = await app.corpus.load(
                [corpus],
                default_area="预训练",
                now=utc_now(),
                limits=BENCH_LIMITS,
                early_texts=True,  # as `paperbot load`
            )
            prepared = await app.prepare(keep_topics=False)
            total = time.perf_counter() - start
        # The load's own peak: the reload below runs with this load's index
        # still in memory, as no `paperbot load` process would.
        load_peak = peak_mb(os.getpid())
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
        "reload_peak_rss_mb": peak_mb(os.getpid()),
        "peak_rss_mb": load_peak,
        "worker_peak_rss_mb": tree.worker_mb,
        "tree_peak_rss_mb": tree.total_mb,
        "tree_peak_pss_mb": tree.total_pss_mb,
    }


async def _timed_load(corpus: CorpusService, folder: Path) -> float:
    start = time.perf_counter()
    await corpus.load([folder], default_area="预训练", now=utc_now(), limits=BENCH_LIMITS)
    return time.perf_counter() - start


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
