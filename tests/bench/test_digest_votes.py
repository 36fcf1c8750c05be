"""`bench digest` with votes, small: the kept state picks what the rebuild
picks after the votes, no net-👎'd paper is picked, every figure is there.

No thresholds on times (the bench reports them)."""

from __future__ import annotations

import argparse

from paperbot.bench.digest import synthetic_server, synthetic_texts
from paperbot.bench.digest_votes import synthetic_votes, with_votes
from paperbot.core.digest import CorpusArrays


def test_small_run_keeps_the_promises() -> None:
    rows, demands, posted = synthetic_server(600, 40, 12, 60, seed=11)
    corpus = CorpusArrays.build(rows, synthetic_texts(rows, seed=11))
    args = argparse.Namespace(votes=12, repeat=3, count=5)
    found = with_votes(corpus, demands, posted, args, plain_s=0.01)
    assert found["same_picks_as_rebuild"] is True
    assert found["net_disliked_picked"] == 0
    assert found["voters"] == len({u for d in demands for u in d.subscribers})
    assert 0 < found["votes"] <= 12 * found["voters"]
    for key in ("personalize_cold_ms", "post_with_votes_ms", "vote_update_ms", "rebuild_warm_ms"):
        assert found[key] > 0


def test_one_vote_per_reader_and_paper() -> None:
    rows, demands, _ = synthetic_server(300, 20, 8, 0, seed=3)
    corpus = CorpusArrays.build(rows, synthetic_texts(rows, seed=3))
    votes = synthetic_votes(corpus, demands, 30, seed=13)
    for own in votes.values():
        assert 0 < len(own) <= 30
        assert set(own.values()) <= {1, -1}
