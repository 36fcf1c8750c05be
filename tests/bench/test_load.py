"""`paperbot bench load`: the whole `paperbot load` job in a fresh process,
with where the time went."""

from __future__ import annotations

import argparse

import pytest

from paperbot.bench import load


@pytest.mark.slow
async def test_a_small_load_reports_its_stages() -> None:
    result = await load.run(argparse.Namespace(papers=300))
    assert result["papers"] == 300
    assert (result["index"], result["topics"]) == ("built", "built")
    stages = [result[k] for k in ("parse_s", "store_s", "search_index_s", "topic_matches_s")]
    assert all(s > 0 for s in stages)
    # Parse and store come before the two preparations, which overlap.
    assert result["total_s"] >= result["parse_s"] + result["store_s"]
    assert result["total_s"] >= max(result["search_index_s"], result["topic_matches_s"])
    assert result["peak_rss_mb"] > 0
    assert result["reload_topics"] == "stored"
