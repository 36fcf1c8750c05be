"""`paperbot bench load`: the whole `paperbot load` job in a fresh process,
with where the time went."""

from __future__ import annotations

import argparse

import pytest

from paperbot.bench import load


@pytest.mark.slow
async def test_a_small_load_reports_its_stages() -> None:
    result = await load.run(argparse.Namespace(papers=300))
    whole = {k.removeprefix("whole_"): v for k, v in result.items() if k.startswith("whole_")}
    assert whole["papers"] == 300
    assert (whole["index"], whole["topics"]) == ("built", "built")
    stages = [whole[k] for k in ("parse_s", "store_s", "search_index_s", "topic_matches_s")]
    assert all(s > 0 for s in stages)
    # Parse and store come before the two preparations, which overlap.
    assert whole["total_s"] >= whole["parse_s"] + whole["store_s"]
    assert whole["total_s"] >= max(whole["search_index_s"], whole["topic_matches_s"])
    assert whole["peak_rss_mb"] > 0
    assert whole["reload_topics"] == "stored"
    assert result["whole_vs_baseline"] > 0
