"""Search N synthetic papers: load + index build, query latency, restart, update.

A fresh database gets N papers recombined from the real pages (`paperbot
load` path), then the search index is built and stored. A fixed mixed query
set (English, typos, Chinese, mixed, full-width, traditional, filters) runs
through `SearchService.search` (the same call the bot makes, papers fetched
included), `--repeat` times. Baseline in the same process: the naive linear
scan (title x20 + summary x1 per query word, text lower-cased once) over the
same papers. Then the database is reopened (a restart: the stored index must
be reused, not rebuilt) and 1% more papers are loaded (the index must
follow).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from paperbot.bench.memory import peak_rss_mb
from paperbot.bench.synthetic import synthetic_papers, write_corpus
from paperbot.cli.common import positive_int
from paperbot.config import SearchSettings
from paperbot.core.search import baseline_corpus, baseline_rank
from paperbot.services.corpus import load_corpus
from paperbot.services.search import SearchService
from paperbot.storage.db import Database
from paperbot.storage.papers import list_papers, paper_count

QUERIES = (
    # English words, phrases, acronyms
    "speculative decoding",
    "scaling laws",
    "data selection for language models",
    "mixture of experts",
    "QLoRA",
    "diffusion language model",
    # typos, run-together and split words
    "shampo optimizer",
    "toolformr",
    "speculativ decodng",
    "quantizaton",
    "refined web",
    # Chinese words and phrases
    "数据去重",
    "权重衰减和批大小",
    "预训练数据",
    "去重",
    "熵",
    "指纹",
    # mixed
    "RoPE 单头",
    "Pre-LN 方差",
    "MoE 路由",
    "LLM 预训练",
    # normalisation and filters
    "ＱＬｏＲＡ",
    "數據混合",
    "NeurIPS 2023 QLoRA",
)
_AREA = "预训练"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--papers", type=positive_int, default=10_000, help="papers to generate")
    parser.add_argument(
        "--repeat", type=positive_int, default=3, help="passes over the query set (default 3)"
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        papers = synthetic_papers(args.papers + max(1, args.papers // 100))
        write_corpus(folder / "corpus", papers[: args.papers])
        write_corpus(folder / "more", papers[args.papers :])
        del papers
        settings = SearchSettings()

        db = await Database.open(folder / "bench.sqlite3")
        try:
            start = time.perf_counter()
            await load_corpus(db, [folder / "corpus"], default_area=_AREA, now=datetime.now(UTC))
            load_s = time.perf_counter() - start
            service = SearchService(db, settings)
            await service.refresh()
            build_s = time.perf_counter() - start
            latencies, hits = await _timed_queries(service, args.repeat)
            baseline = await _baseline_latencies(db)
        finally:
            await db.close()

        # A restart: a new connection and service must reuse the stored index.
        start = time.perf_counter()
        db = await Database.open(folder / "bench.sqlite3")
        try:
            service = SearchService(db, settings)
            await service.refresh()
            restart_s = time.perf_counter() - start
            restart_source = service.last_status.source if service.last_status else "?"
            restart_latencies, _ = await _timed_queries(service, 1)

            # A later load that adds papers: the index must follow.
            start = time.perf_counter()
            await load_corpus(
                db,
                [folder / "corpus", folder / "more"],
                default_area=_AREA,
                now=datetime.now(UTC),
            )
            await service.refresh()
            update_s = time.perf_counter() - start
            stored = await paper_count(db)
            indexed = (await service.ensure_index()).size
        finally:
            await db.close()

    p50 = _percentile(latencies, 50)
    baseline_p50 = _percentile(baseline, 50)
    return {
        "papers": args.papers,
        "queries": len(latencies),
        "queries_with_hits": hits,
        "load_s": load_s,
        "build_s": build_s,
        "index_build_s": build_s - load_s,
        "p50_ms": p50,
        "p95_ms": _percentile(latencies, 95),
        "max_ms": max(latencies),
        "baseline_p50_ms": baseline_p50,
        "baseline_p95_ms": _percentile(baseline, 95),
        "speedup_p50": baseline_p50 / p50,
        "restart_s": restart_s,
        "restart_index": restart_source,
        "restart_p50_ms": _percentile(restart_latencies, 50),
        "update_papers": stored,
        "update_indexed": indexed,
        "update_load_and_rebuild_s": update_s,
        "peak_rss_mb": peak_rss_mb(),
    }


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


async def _baseline_latencies(db: Database) -> list[float]:
    corpus = baseline_corpus(await list_papers(db))
    latencies = []
    for query in QUERIES:
        start = time.perf_counter()
        baseline_rank(corpus, query)
        latencies.append((time.perf_counter() - start) * 1000)
    return latencies


def _percentile(values: list[float], pct: int) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[pct - 1]
