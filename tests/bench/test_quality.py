"""`paperbot bench quality` on the shipped corpus and the judged data.

No thresholds: the figures are what the bench reports. These tests check
that every metric is reported for every judged topic and query kind, beside
its baseline, and that the numbers are well-formed.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from paperbot.bench.judged import QUERY_KINDS, load_judged_queries, load_judged_topics
from paperbot.bench.quality import QUERY_SETS, SEARCH_METRICS, TOPIC_METRICS, TOPIC_SETS, render
from paperbot.cli import main
from tests.support.app import REPO


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as monkeypatch, contextlib.redirect_stdout(out):
        monkeypatch.setenv("PAPERBOT_CONFIG", str(REPO / "config" / "paperbot.toml"))
        db = tmp_path_factory.mktemp("quality") / "unused.sqlite3"
        monkeypatch.setenv("PAPERBOT_DB", str(db))
        monkeypatch.delenv("PAPERBOT_CORPUS", raising=False)
        assert main(["bench", "quality", "--json"]) == 0
    result: dict[str, Any] = json.loads(out.getvalue())
    return result


def _is_ratio(pair: dict[str, float]) -> bool:
    return set(pair) == {"bot", "baseline"} and all(0.0 <= v <= 1.0 for v in pair.values())


def test_every_judged_topic_has_every_metric_beside_its_baseline(report: dict[str, Any]) -> None:
    judged = load_judged_topics()
    rows = report["topics"]["per_topic"]
    assert [r["query"] for r in rows] == [t.query for t in judged]
    for row, topic in zip(rows, judged, strict=True):
        assert row["relevant"] == len(topic.relevant)
        for metric in TOPIC_METRICS:
            assert _is_ratio(row[metric]), (topic.query, metric)
    for figures in (report["topics"]["overall"], *report["topics"]["by_kind"].values()):
        assert all(_is_ratio(figures[m]) for m in TOPIC_METRICS)
    assert set(report["topics"]["by_kind"]) == {t.kind for t in judged}


def test_overall_topic_figures_are_macro_averages(report: dict[str, Any]) -> None:
    rows = report["topics"]["per_topic"]
    for metric in TOPIC_METRICS:
        for side in ("bot", "baseline"):
            average = sum(r[metric][side] for r in rows) / len(rows)
            assert report["topics"]["overall"][metric][side] == pytest.approx(average)


def test_every_query_kind_has_hits_and_mrr_beside_the_baseline(report: dict[str, Any]) -> None:
    search = report["search"]
    assert set(search["by_kind"]) == set(QUERY_KINDS)
    assert search["overall"]["queries"] == len(load_judged_queries()) == report["judged_queries"]
    for figures in (search["overall"], *search["by_kind"].values()):
        assert all(_is_ratio(figures[m]) for m in SEARCH_METRICS)
    for row in search["per_query"]:
        for side in ("bot", "baseline"):
            rank = row["rank"][side]
            assert rank is None or 1 <= rank <= report["rank_depth"]
            assert row["mrr"][side] == (0.0 if rank is None else pytest.approx(1 / rank))


def test_the_table_names_every_topic_and_kind(report: dict[str, Any]) -> None:
    table = render(report)
    assert "bot / baseline" in table
    for row in report["topics"]["per_topic"]:
        assert row["query"][:20] in table
    for kind in QUERY_KINDS:
        assert kind in table


def test_the_judged_data_ships_inside_the_package() -> None:
    import paperbot

    judged = Path(paperbot.__file__).parent / "data" / "judged"
    assert (judged / "topics.toml").is_file()
    assert (judged / "queries.toml").is_file()


def test_the_held_out_set_is_reported_apart_beside_its_baseline(report: dict[str, Any]) -> None:
    from paperbot.bench.judged import HELD_OUT_QUERIES_FILE, HELD_OUT_TOPICS_FILE

    held = report["held_out"]
    topics = load_judged_topics(HELD_OUT_TOPICS_FILE)
    assert [r["query"] for r in held["topics"]["per_topic"]] == [t.query for t in topics]
    assert held["judged_queries"] == len(load_judged_queries(HELD_OUT_QUERIES_FILE))
    assert all(_is_ratio(held["topics"]["overall"][m]) for m in TOPIC_METRICS)
    assert all(_is_ratio(held["search"]["overall"][m]) for m in SEARCH_METRICS)
    table = render(report)
    assert table.index("== tuned set") < table.index("== held-out set")


@pytest.mark.parametrize("at", range(len(TOPIC_SETS)))
def test_each_set_of_topics_is_reported_apart_in_order(report: dict[str, Any], at: int) -> None:
    key, path, heading = TOPIC_SETS[at]
    reported = report[key]
    topics = load_judged_topics(path)
    assert [r["query"] for r in reported["topics"]["per_topic"]] == [t.query for t in topics]
    assert reported["judged_topics"] == len(topics)
    assert all(_is_ratio(reported["topics"]["overall"][m]) for m in TOPIC_METRICS)
    table = render(report)
    before = "== held-out set" if at == 0 else f"== {TOPIC_SETS[at - 1][2]}:"
    assert table.index(before) < table.index(f"== {heading}:")
    for row in reported["topics"]["per_topic"]:
        assert row["query"][:20] in table


@pytest.mark.parametrize("at", range(len(QUERY_SETS)))
def test_each_set_of_queries_is_reported_apart_after_the_topics(
    report: dict[str, Any], at: int
) -> None:
    key, path, heading = QUERY_SETS[at]
    search = report[key]["search"]
    queries = load_judged_queries(path)
    assert report[key]["judged_queries"] == len(queries)
    assert [r["query"] for r in search["per_query"]] == [q.query for q in queries]
    assert all(_is_ratio(search["overall"][m]) for m in SEARCH_METRICS)
    table = render(report)
    before = f"== {(QUERY_SETS[at - 1] if at else TOPIC_SETS[-1])[2]}:"
    assert table.index(before) < table.index(f"== {heading}: {len(queries)} judged queries")


def test_the_second_reading_is_reported_after_the_sets_of_topics(report: dict[str, Any]) -> None:
    from paperbot.bench.agreement import AGREEMENT_METRICS
    from paperbot.bench.judged import SECOND_TOPICS_FILE

    second = report["second_reader"]
    again = load_judged_topics(SECOND_TOPICS_FILE)
    first = {t.query: t for t in load_judged_topics()}
    assert [r["query"] for r in second["per_topic"]] == [t.query for t in again]
    for row, topic in zip(second["per_topic"], again, strict=True):
        assert row["relevant"] == {
            "first": len(first[topic.query].relevant),
            "second": len(topic.relevant),
        }
        for metric in AGREEMENT_METRICS:
            figure = row[metric]
            assert _is_ratio(figure) if isinstance(figure, dict) else -1 <= figure <= 1
    table = render(report)
    assert table.index(f"== {QUERY_SETS[-1][2]}:") < table.index("== the tuned topics read again")
