"""`with_more_near`: further near papers after every one a topic had."""

from __future__ import annotations

import numpy as np
import pytest

from paperbot.core.topics import NEAR_LIMIT, TopicMatches, with_more_near


def matches(ids: list[int], near: list[int], near_scores: list[float]) -> TopicMatches:
    return TopicMatches(
        np.array(ids, dtype=np.int64),
        np.full(len(ids), 2.0),
        np.array(near, dtype=np.int64),
        np.array(near_scores, dtype=np.float64),
    )


@pytest.mark.parametrize(
    ("near", "near_scores", "found", "added"),
    [
        ([2, 3], [1.0, 0.5], [1, 4, 2, 5], [4, 5]),  # matches and near papers are skipped
        ([], [], [5, 4, 5], [5, 4]),  # each paper once, in the order found
        ([2], [0.004], [6], [6]),  # below a near score under the usual top too
        (list(range(100, 100 + NEAR_LIMIT - 2)), [0.5] * (NEAR_LIMIT - 2), [7, 8, 9], [7, 8]),
        ([2], [0.5], [1, 2], []),  # nothing new
    ],
)
def test_with_more_near(
    near: list[int], near_scores: list[float], found: list[int], added: list[int]
) -> None:
    before = matches([1], near, near_scores)
    after = with_more_near(before, found)
    assert after.near_ids.tolist() == near + added
    assert after.ids.tolist() == [1]  # never a match
    new = after.near_scores[len(near) :]
    assert np.all(new > 0)
    assert np.all(np.diff(new) < 0)  # best first
    if near and added:
        assert np.max(new) < min(near_scores)  # after every near paper it had
    assert np.max(new, initial=0.0) <= 0.01


def test_a_full_near_list_is_left_as_it_is() -> None:
    full = matches([1], list(range(100, 100 + NEAR_LIMIT)), [0.5] * NEAR_LIMIT)
    assert with_more_near(full, [7]) is full
