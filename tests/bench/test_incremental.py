"""`bench/incremental.py`: `paperbot load` of 1% more papers in a new
process brings the stored index and topic matches up to date (the full run
at scale is the benchmark's; here a small corpus in real subprocesses)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperbot.bench import incremental
from paperbot.bench.synthetic import synthetic_papers, write_corpus

# At 5,000 + 1% no character crosses the common threshold (as in
# tests/services/test_search_append.py), so the step must append.
COUNT = 5000


def test_ratios_compare_the_step_with_the_full_build() -> None:
    full = {"prepare_s": 10.0, "index_s": 4.0, "total_s": 20.0, "peak_rss_mb": 400.0}
    more = {"prepare_s": 0.5, "index_s": 0.2, "total_s": 2.0, "peak_rss_mb": 300.0}
    assert incremental.ratios(more, full) == {
        "more_vs_full_prepare_time": 0.05,
        "more_vs_full_index_time": 0.05,
        "more_vs_full_total_time": 0.1,
        "more_vs_full_peak_rss": 0.75,
    }


@pytest.mark.timeout(300)
def test_one_percent_more_in_a_new_process_is_appended(tmp_path: Path) -> None:
    papers = synthetic_papers(COUNT + COUNT // 100)
    write_corpus(tmp_path / "corpus", papers[:COUNT])
    incremental.write_pages(tmp_path / "more", papers[COUNT:], "more")
    assert all(p.name.startswith("more-") for p in (tmp_path / "more").iterdir())
    db = tmp_path / "bench.sqlite3"
    full = incremental.load_in_fresh_process(db, tmp_path / "corpus", topics=True)
    assert (full["index_source"], full["topics_source"]) == ("built", "built")
    more = incremental.load_in_fresh_process(db, tmp_path / "more", topics=True)
    assert more["new_papers"] == COUNT // 100
    assert more["papers"] == COUNT + COUNT // 100
    assert (more["index_source"], more["topics_source"]) == ("appended", "appended")
    assert more["peak_rss_mb"] > 0
