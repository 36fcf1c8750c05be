"""Two readers' agreement and the matchers against each (`bench.agreement`):
pure functions over paper ids, table-driven."""

from __future__ import annotations

import pytest

from paperbot.bench.agreement import agreement_row, agreement_summary, cohen_kappa


@pytest.mark.parametrize(
    ("first", "second", "papers", "kappa"),
    [
        ({1, 2}, {1, 2}, 10, 1.0),  # identical
        ({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, 10, -1.0),  # opposite, half relevant each
        # 2 both, 1 + 1 disputed, 6 neither: po 0.8, pe 0.3 * 0.3 + 0.7 * 0.7 = 0.58
        ({1, 2, 3}, {1, 2, 4}, 10, (0.8 - 0.58) / (1 - 0.58)),
        (set(), set(), 10, 1.0),  # nothing relevant to either: chance is certain
        ({1}, set(), 4, 0.0),  # one says nothing is relevant: no better than chance
    ],
)
def test_cohen_kappa(first: set[int], second: set[int], papers: int, kappa: float) -> None:
    assert cohen_kappa(first, second, papers) == pytest.approx(kappa)


def test_kappa_needs_papers() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        cohen_kappa({1}, {1}, 0)


@pytest.mark.parametrize(
    ("found", "second_p", "second_r", "agreed_p", "agreed_r"),
    [
        # first {1,2,3}, second {2,3,4}: 2 and 3 agreed, 1 and 4 disputed.
        ({2, 3}, 1.0, 2 / 3, 1.0, 1.0),
        ({1, 2}, 0.5, 1 / 3, 1.0, 0.5),  # 1 is disputed: counts neither way
        ({4, 5}, 0.5, 1 / 3, 0.0, 0.0),  # 4 disputed, 5 wrong to both readers
        (set(), 0.0, 0.0, 0.0, 0.0),
    ],
)
def test_agreement_row_scores_matchers_against_the_second_reader_and_agreed_papers(
    found: set[int], second_p: float, second_r: float, agreed_p: float, agreed_r: float
) -> None:
    row = agreement_row("t", {1, 2, 3}, {2, 3, 4}, {"bot": found, "baseline": set()}, 20)
    assert row["relevant"] == {"first": 3, "second": 3}
    assert row["disputed"] == 2
    assert row["readers_precision"] == pytest.approx(2 / 3)
    assert row["readers_recall"] == pytest.approx(2 / 3)
    assert row["second_precision"]["bot"] == pytest.approx(second_p)
    assert row["second_recall"]["bot"] == pytest.approx(second_r)
    assert row["agreed_precision"]["bot"] == pytest.approx(agreed_p)
    assert row["agreed_recall"]["bot"] == pytest.approx(agreed_r)
    assert row["agreed_recall"]["baseline"] == 0.0


def test_summary_is_the_macro_mean_over_topics() -> None:
    rows = [
        agreement_row("a", {1}, {1}, {"bot": {1}, "baseline": set()}, 10),
        agreement_row("b", {1, 2}, {1}, {"bot": {3}, "baseline": {1}}, 10),
    ]
    summary = agreement_summary(rows)
    assert summary["judged_topics"] == 2
    overall = summary["overall"]
    assert overall["readers_precision"] == pytest.approx((1.0 + 0.5) / 2)
    assert overall["readers_recall"] == pytest.approx(1.0)
    assert overall["second_precision"] == {"bot": 0.5, "baseline": 0.5}
    assert summary["per_topic"] == rows
