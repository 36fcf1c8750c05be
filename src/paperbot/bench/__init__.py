"""Benchmarks: `paperbot bench NAME` runs `paperbot.bench.NAME`."""


class BenchmarkRefused(Exception):
    """The benchmark as asked would measure nothing (e.g. an empty result)."""
