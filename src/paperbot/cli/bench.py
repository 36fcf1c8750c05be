"""`paperbot bench NAME`: speed and memory measurements.

Each benchmark lives in `paperbot.bench.NAME` with `add_arguments(parser)`
and `run(args) -> dict` (an async function). The CLI prints the dict as a
table (the module's own `render(result) -> str` when it has one), or as one
JSON object with `--json`.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
from typing import Any

from paperbot.bench import BenchmarkRefused
from paperbot.cli.common import EXIT_OK, EXIT_USAGE, fail, print_json
from paperbot.config import Settings

BENCHMARKS = {
    "load": "paperbot.bench.load",
    "digest": "paperbot.bench.digest",
    "topics": "paperbot.bench.topics",
    "search": "paperbot.bench.search",
    "quality": "paperbot.bench.quality",
    "feedback": "paperbot.bench.feedback",
    "coldstart": "paperbot.bench.coldstart",
    "lexicon": "paperbot.bench.lexicon",
}


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser("bench", help="run a benchmark")
    names = parser.add_subparsers(dest="benchmark", required=True, metavar="NAME")
    for name, module_name in BENCHMARKS.items():
        module = importlib.import_module(module_name)
        sub = names.add_parser(name, help=(module.__doc__ or "").strip().splitlines()[0])
        module.add_arguments(sub)
        sub.add_argument("--json", action="store_true", help="print one JSON object")
        sub.set_defaults(handler=run, bench_module=module)


def run(args: argparse.Namespace, _settings: Settings) -> int:
    try:
        result: dict[str, Any] = asyncio.run(args.bench_module.run(args))
    except BenchmarkRefused as exc:
        return fail(f"bench {args.benchmark}: {exc}", EXIT_USAGE)
    render = getattr(args.bench_module, "render", None)
    if args.json:
        print_json(result)
    elif render is not None:
        print(render(result))
    else:
        width = max(len(k) for k in result)
        for key, value in result.items():
            shown = f"{value:.3f}" if isinstance(value, float) else value
            print(f"{key:<{width}}  {shown}")
    return EXIT_OK
