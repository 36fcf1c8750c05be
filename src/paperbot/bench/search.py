"""Search N synthetic papers: load + index build, query latency, restart, update.

A fresh database gets N papers recombined from the real pages (`paperbot
load` path), then the search index is built and stored. A fixed query set
(`search_queries`: keywords — English, typos, Chinese, mixed, full-width,
traditional, filters — and questions — English and Chinese questions,
paraphrases, cross-lingual descriptions) runs through
`SearchService.search` (the same call the bot makes, papers fetched
included), `--repeat` times. Baseline in the same process: the naive linear
scan (title x20 + summary x1 per query word, text lower-cased once) over the
same papers. Percentiles for the whole set and per group (`keyword_*`,
`question_*`, `baseline_keyword_*` ...). Then a fresh process opens the
database (a restart: the stored index must be reused, not rebuilt; its peak
RSS is what a bot serving searches needs), and 1% more papers are loaded
(the index must follow, appending them: its time and extra peak memory are
reported as ratios to the full build's in the same run). Then another 1% by
`paperbot load` in a new process (`new_process_update_*`): the stored index
must be brought up to date from its watermark ("appended"); its time
against the full build's and its peak RSS against the serving process's
(one index held, not two).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from paperbot.argtypes import positive_int
from paperbot.bench import incremental, run_child
from paperbot.bench.backends import add_backend_arguments, on_backends
from paperbot.bench.baselines import BaselineCorpus, baseline_rank
from paperbot.bench.memory import peak_rss_mb
from paperbot.bench.search_queries import QUERIES, group_figures, percentile
from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.clock import utc_now
from paperbot.config import BUNDLED_TOPICS, SearchSettings
from paperbot.core.topics import Vocabulary
from paperbot.services import workers
from paperbot.services.app import open_database, vocabulary_search
from paperbot.services.corpus import CorpusService
from paperbot.services.search import SearchService
from paperbot.services.topics import load_vocabulary

_AREA = "预训练"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--papers", type=positive_int, default=10_000, help="papers to generate")
    parser.add_argument(
        "--repeat", type=positive_int, default=3, help="passes over the query set (default 3)"
    )
    add_backend_arguments(parser)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    # Builds in this process (in a thread, not the worker process): their
    # time and peak memory are what is measured here.
    workers.WORKER_THRESHOLD = sys.maxsize
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _write_bench_corpus(folder, args.papers)

        async def measure(target: str | Path) -> dict[str, Any]:
            return await _measure(target, folder, args)

        return await on_backends(args, folder / "bench.sqlite3", measure)


async def _measure(db_path: str | Path, folder: Path, args: argparse.Namespace) -> dict[str, Any]:
    first = await _measure_first_load(db_path, folder / "corpus", args.repeat)
    # A restart: a fresh process must reuse the stored index, not rebuild it.
    restart = _restart_in_fresh_process(db_path, args.repeat)
    # A later load that adds 1% more papers: the index must follow.
    update = await _measure_update(db_path, folder, args.papers, first.peaks)
    # Another 1% by `paperbot load` in a new process: the stored index is
    # brought up to date, not rebuilt, and never held twice.
    later = incremental.load_in_fresh_process(db_path, folder / "later", topics=False)
    full_extra = first.peaks.get("full_build_extra_mb", 0.0)
    return {
        "papers": args.papers,
        **first.figures(),
        **restart,
        **update,
        # The incremental update (1% more papers) against the full build above.
        "update_vs_full_build_time": update["update_index_s"] / first.index_s,
        "update_vs_full_build_memory": (
            update["update_index_extra_mb"] / full_extra if full_extra > 0 else None
        ),
        **{f"new_process_update_{k}": v for k, v in later.items()},
        "new_process_update_vs_full_build_time": later["index_s"] / first.index_s,
        # Against the restarted process that holds one index and serves.
        "new_process_update_vs_serving_peak_rss": (
            later["peak_rss_mb"] / restart["serve_peak_rss_mb"]
        ),
        "peak_rss_mb": peak_rss_mb(),
        **first.peaks,
    }


@dataclass
class _FirstLoad:
    """What the first load, the index build and the timed queries measured."""

    load_s: float
    index_s: float
    baseline: list[float]
    latencies: list[float]
    hits: int
    peaks: dict[str, float]

    def figures(self) -> dict[str, Any]:
        p50 = percentile(self.latencies, 50)
        baseline_p50 = percentile(self.baseline, 50)
        return {
            "queries": len(self.latencies),
            "queries_with_hits": self.hits,
            "load_s": self.load_s,
            "index_build_s": self.index_s,
            "build_s": self.load_s + self.index_s,
            "p50_ms": p50,
            "p95_ms": percentile(self.latencies, 95),
            "max_ms": max(self.latencies),
            "baseline_p50_ms": baseline_p50,
            "baseline_p95_ms": percentile(self.baseline, 95),
            "speedup_p50": baseline_p50 / p50,
            "speedup_p95": percentile(self.baseline, 95) / percentile(self.latencies, 95),
            # Keyword queries against questions (the long-query path).
            **group_figures(self.latencies),
            **group_figures(self.baseline, prefix="baseline_"),
        }


def _write_bench_corpus(folder: Path, count: int) -> None:
    """`count` papers in folder/corpus, 1% more in folder/more and another
    1% in folder/later."""
    extra = max(1, count // 100)
    papers = synthetic_papers(count + 2 * extra)
    write_corpus(folder / "corpus", papers[:count])
    # Own file names: the loader tells files apart by name, and pages of
    # the same name would replace the first load's instead of adding to it.
    incremental.write_pages(folder / "more", papers[count : count + extra], "more")
    incremental.write_pages(folder / "later", papers[count + extra :], "later")


async def _measure_first_load(db_path: str | Path, corpus_folder: Path, repeat: int) -> _FirstLoad:
    db = await open_database(db_path)
    try:
        corpus = CorpusService(db)
        start = time.perf_counter()
        await corpus.load([corpus_folder], default_area=_AREA, now=utc_now(), limits=BENCH_LIMITS)
        load_s = time.perf_counter() - start
        peaks = {"peak_after_load_mb": _high_water_mb()}
        baseline = await _baseline_latencies(corpus)  # before the index: peaks don't add up
        start = time.perf_counter()
        service = vocabulary_search(db, SearchSettings(), _shipped_vocabulary())
        before_mb = _reset_peak()
        await service.refresh()
        index_s = time.perf_counter() - start
        peaks["full_build_extra_mb"] = _high_water_mb() - before_mb
        latencies, hits = await _timed_queries(service, repeat)
        peaks["peak_after_build_mb"] = _high_water_mb()
        del service
    finally:
        await db.close()
    return _FirstLoad(load_s, index_s, baseline, latencies, hits, peaks)


async def _measure_update(
    db_path: str | Path, folder: Path, papers: int, peaks: dict[str, float]
) -> dict[str, Any]:
    """Load the extra 1% on top; the index must follow. Adds its peak to `peaks`."""
    db = await open_database(db_path)
    try:
        corpus = CorpusService(db)
        service = vocabulary_search(db, SearchSettings(), _shipped_vocabulary())
        await service.refresh()
        start = time.perf_counter()
        await corpus.load(
            [folder / "corpus", folder / "more"],
            default_area=_AREA,
            now=utc_now(),
            limits=BENCH_LIMITS,
        )
        before_mb = _reset_peak()
        index_start = time.perf_counter()
        await service.refresh()
        update_index_s = time.perf_counter() - index_start
        update_extra_mb = _high_water_mb() - before_mb
        update_s = time.perf_counter() - start
        source = service.last_status.source if service.last_status else "none"
        stored = await corpus.paper_count()
        indexed = (await service.ensure_index()).size
        # The first added paper's title ends with its serial, S{papers}.
        found = await service.search(f"S{papers}", limit=3)
        peaks["peak_after_update_mb"] = _high_water_mb()
        await service.flush()
    finally:
        await db.close()
    return {
        "update_papers": stored,
        "update_indexed": indexed,
        "update_new_paper_found": any(h.paper.title.endswith(f"S{papers}") for h in found.hits),
        "update_load_and_rebuild_s": update_s,
        "update_index_source": source,
        "update_index_s": update_index_s,
        "update_index_extra_mb": update_extra_mb,
    }


@cache
def _shipped_vocabulary() -> Vocabulary:
    """Search is measured as the bot runs it, with the shipped vocabulary's
    aliases and bilingual concepts: the questions' expansions are part of
    their cost."""
    return load_vocabulary(BUNDLED_TOPICS)


async def _timed_queries(service: SearchService, repeat: int) -> tuple[list[float], int]:
    await service.search("warm up")  # first-call costs (imports, caches) are not latency
    latencies: list[float] = []
    with_hits = 0
    for _ in range(repeat):
        for query in QUERIES:
            start = time.perf_counter()
            result = await service.search(query, limit=10)
            latencies.append((time.perf_counter() - start) * 1000)
            with_hits += bool(result.hits)
    return latencies, with_hits // repeat


async def _baseline_latencies(corpus_service: CorpusService) -> list[float]:
    columns = await corpus_service.columns()
    corpus = BaselineCorpus(
        tuple(columns.ids),
        tuple(t.lower() for t in columns.titles),
        tuple(s.lower() for s in columns.summaries),
    )
    del columns
    latencies = []
    for query in QUERIES:
        start = time.perf_counter()
        baseline_rank(corpus, query)
        latencies.append((time.perf_counter() - start) * 1000)
    return latencies


def _restart_in_fresh_process(db_path: str | Path, repeat: int) -> dict[str, Any]:
    """Run `_serve` in a new interpreter: restart time, latency and the
    memory of a process that only serves searches."""
    return run_child("paperbot.bench.search", str(db_path), str(repeat))


async def _serve(db_path: str | Path, repeat: int) -> dict[str, Any]:
    _shipped_vocabulary()  # read at start-up, before the index: not the restart's cost
    start = time.perf_counter()
    db = await open_database(db_path)
    try:
        service = vocabulary_search(db, SearchSettings(), _shipped_vocabulary())
        await service.refresh()
        restart_s = time.perf_counter() - start
        latencies, _ = await _timed_queries(service, repeat)
        status = service.last_status
    finally:
        await db.close()
    return {
        "restart_s": restart_s,
        "restart_index": status.source if status else "none",
        "restart_p50_ms": percentile(latencies, 50),
        "restart_p95_ms": percentile(latencies, 95),
        **group_figures(latencies, prefix="restart_"),
        # Not ru_maxrss: across fork+exec it carries the parent's peak.
        "serve_peak_rss_mb": _high_water_mb(),
    }


def _reset_peak() -> float:
    """Reset this process's peak RSS to its current RSS (Linux: clear_refs)
    and return that RSS: a step's peak is then `_high_water_mb()` minus it."""
    try:
        Path("/proc/self/clear_refs").write_text("5", encoding="ascii")
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _high_water_mb() -> float:
    """This process image's peak RSS (VmHWM); ru_maxrss where /proc is missing."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        return peak_rss_mb()
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return peak_rss_mb()


if __name__ == "__main__":
    sys.stdout.write(json.dumps(asyncio.run(_serve(sys.argv[1], int(sys.argv[2])))) + "\n")
