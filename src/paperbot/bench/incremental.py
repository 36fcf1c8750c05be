"""`paperbot load` of 1% more papers in a new process, against a full build
in the same run (shared by `bench search` and `bench load`).

Each step is a fresh interpreter doing what `paperbot load PAGES` does: open
the database, load the pages, then `App.prepare` (the search index and,
with topics, the topic matches, stored for the next start). Builds run in
this process (not the worker process), so its peak RSS counts them. The
1% step must bring the stored index up to date ("appended"), not rebuild it.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from paperbot.bench import run_child
from paperbot.bench.synthetic import BENCH_LIMITS, write_corpus


def write_pages(folder: Path, papers: list[tuple[str, str]], prefix: str) -> None:
    """Pages of `papers` whose file names start with `prefix` (the loader
    tells pages apart by name: the same names would replace earlier pages)."""
    for page in write_corpus(folder, papers):
        page.rename(page.with_name(f"{prefix}-{page.name}"))


def load_in_fresh_process(db: str | Path, pages: Path, *, topics: bool) -> dict[str, Any]:
    """`paperbot load pages` in a new interpreter: its seconds (load,
    prepare, index, all), how the index and topics became current, and its
    peak RSS."""
    return run_child(
        "paperbot.bench.incremental", str(pages), str(int(topics)), env={"PAPERBOT_DB": str(db)}
    )


def ratios(more: dict[str, Any], full: dict[str, Any]) -> dict[str, Any]:
    """The 1% step over the full build: time (the prepare: index and topics;
    and the whole command) and peak memory of the process."""
    return {
        "more_vs_full_prepare_time": more["prepare_s"] / max(full["prepare_s"], 1e-9),
        "more_vs_full_index_time": more["index_s"] / max(full["index_s"], 1e-9),
        "more_vs_full_total_time": more["total_s"] / max(full["total_s"], 1e-9),
        "more_vs_full_peak_rss": more["peak_rss_mb"] / max(full["peak_rss_mb"], 1e-9),
    }


async def _load(pages: Path, topics: bool) -> dict[str, Any]:
    from paperbot.clock import utc_now
    from paperbot.config import load_settings
    from paperbot.services import workers
    from paperbot.services.app import App

    workers.WORKER_THRESHOLD = sys.maxsize  # builds here: the peak counts them
    start = time.perf_counter()
    app = await App.open(load_settings())
    try:
        report = await app.corpus.load(
            [pages], default_area="预训练", now=utc_now(), limits=BENCH_LIMITS
        )
        loaded = time.perf_counter()
        prepared = await app.prepare(topics=topics, keep_topics=False)
        done = time.perf_counter()
    finally:
        await app.close()
    return {
        "new_papers": report.new,
        "papers": prepared.papers,
        "index_source": prepared.index_source,
        "topics_source": prepared.topics_source,
        "load_s": loaded - start,
        "prepare_s": done - loaded,
        "index_s": prepared.index_seconds,
        "total_s": time.perf_counter() - start,
        "peak_rss_mb": _high_water_mb(),
    }


def _high_water_mb() -> float:
    """This process image's peak RSS (VmHWM: ru_maxrss would carry the
    parent's across fork+exec)."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


if __name__ == "__main__":
    figures = asyncio.run(_load(Path(sys.argv[1]), sys.argv[2] == "1"))
    sys.stdout.write(json.dumps(figures) + "\n")
