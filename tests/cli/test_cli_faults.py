"""CLI faults from issue 13: one clear line and the right exit code, never a traceback."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from paperbot.cli import main


@pytest.fixture(autouse=True)
def isolated_env(cli_env: Path) -> Path:
    return cli_env


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- snowflakes (item 7) -----------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ("digest", "preview", "--guild", "99999999999999999999999"),
        ("digest", "preview", "--guild", "-5"),
        ("digest", "preview", "--guild", "18446744073709551616"),
        ("subscriptions", "--guild", "99999999999999999999999"),
        ("subscriptions", "--user", "18446744073709551616"),
        ("subscriptions", "--user", str(2**63)),
        ("subscriptions", "--user", "١٢٣"),
    ],
)
def test_ids_beyond_64_bits_are_refused_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "not a Discord id" in err
    assert "Traceback" not in err


def test_largest_snowflake_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run_cli(capsys, "subscriptions", "--guild", str(2**63 - 1), "--json")
    assert code == 0
    assert json.loads(out) == []


# --- digest preview notes (smaller things) ----------------------------------


def test_preview_on_an_empty_database_says_nothing_is_loaded(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_cli(capsys, "digest", "preview", "--topics", "RLHF")
    assert code == 1
    assert "already been posted" not in out + err
    assert "no papers loaded" in err
    assert "paperbot load" in err


def test_preview_for_an_unknown_guild_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    run_cli(capsys, "load")
    code, _out, err = run_cli(capsys, "digest", "preview", "--guild", "123456789")
    assert code == 1
    assert "server 123456789 has no digest set up and no subscribers" in err


def test_preview_with_topics_that_match_nothing_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run_cli(capsys, "load")
    code, _out, err = run_cli(capsys, "digest", "preview", "--topics", "RLHF, qwxzzyv")
    assert code == 1
    assert "qwxzzyv" in err
    assert "matches no paper" in err
    assert "RLHF" not in err


def test_synonyms_in_topics_are_one_topic(capsys: pytest.CaptureFixture[str]) -> None:
    run_cli(capsys, "load")
    code, out, err = run_cli(
        capsys,
        "digest",
        "preview",
        "--json",
        "--count",
        "10",
        "--topics",
        "scaling laws,缩放律",
    )
    assert code == 0, err
    picks = json.loads(out)["picks"]
    for pick in picks:
        assert len(pick["topics"]) == len(set(pick["topics"])), pick
    # Listed twice, the topic is still one topic: every pick names it once.
    assert picks
    assert all(p["topics"] == ["Scaling laws · 缩放定律"] for p in picks)


# --- logging (smaller things) ------------------------------------------------


def test_verbose_does_not_log_every_sql_statement(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    run_cli(capsys, "-v", "list", "--json")
    assert not [r for r in caplog.records if r.name.startswith("aiosqlite")]
    assert logging.getLogger("aiosqlite").getEffectiveLevel() >= logging.INFO


# --- search messages (smaller things) ----------------------------------------


_WHY = ("only English and Chinese", "only punctuation", "only common words")


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("שלום עולם", "only English and Chinese"),
        ("مرحبا بالعالم", "only English and Chinese"),
        ("Привет", "only English and Chinese"),
        ("?!?! ...", "only punctuation"),
        ("the", "only common words"),
        ("的", "only common words"),
        ("of and the", "only common words"),
    ],
)
def test_a_query_that_cannot_be_searched_says_why(
    capsys: pytest.CaptureFixture[str], query: str, why: str
) -> None:
    run_cli(capsys, "load")
    code, out, _err = run_cli(capsys, "search", query)
    assert code == 1
    assert [reason for reason in _WHY if reason in out] == [why]


def test_an_unknown_venue_is_named_with_the_loaded_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run_cli(capsys, "load")
    code, out, _err = run_cli(capsys, "search", "qlora", "--venue", "nips")
    assert code == 1
    assert (
        out.strip() == "no loaded paper is from a venue called 'nips'; venues: ICLR, ICML, NeurIPS"
    )
    code, _out, err = run_cli(capsys, "list", "--venue", "nips")
    assert code == 1
    assert "venue called 'nips'; venues: ICLR, ICML, NeurIPS" in err


@pytest.mark.parametrize(
    ("filters", "line"),
    [
        # A loaded venue, just not that year: the venue's years are named.
        (("--venue", "iclr", "--year", "2023"), "no loaded ICLR paper is from 2023; years: 2026"),
        (("--year", "1999"), "no loaded paper is from 1999; years: 2023, 2025, 2026"),
    ],
)
def test_list_names_the_years_when_a_year_filter_finds_nothing(
    capsys: pytest.CaptureFixture[str], filters: tuple[str, ...], line: str
) -> None:
    run_cli(capsys, "load")
    code, out, err = run_cli(capsys, "list", *filters)
    assert (code, out, err.strip()) == (1, "", f"paperbot: {line}")
    code, out, _err = run_cli(capsys, "list", "--venue", "iclr", "--year", "2026")
    assert code == 0
    assert out.splitlines()[-1].endswith(" papers")


def test_a_year_in_the_query_that_finds_nothing_falls_back_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run_cli(capsys, "load")
    code, out, _err = run_cli(capsys, "search", "scaling laws 1999")
    assert code == 0
    assert "no papers from 1999" in out
    assert "any year" in out
    assert "Scaling" in out or "scaling" in out


def test_an_applied_year_filter_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    run_cli(capsys, "load")
    code, out, _err = run_cli(capsys, "search", "QLoRA 2023")
    assert code == 0
    assert out.splitlines()[0] == "filter: year 2023 (from the query)"


def test_an_explicit_year_option_does_not_fall_back(capsys: pytest.CaptureFixture[str]) -> None:
    run_cli(capsys, "load")
    code, out, _err = run_cli(capsys, "search", "scaling laws", "--year", "1999")
    # No fallback to any year: the option stands, and the answer names the years there are.
    assert (code, out.strip()) == (1, "no loaded paper is from 1999; years: 2023, 2025, 2026")
    code, out, _err = run_cli(capsys, "search", "scaling laws", "--venue", "iclr", "--year", "2023")
    # 2023 is loaded, but no ICLR paper is from it: the years named are ICLR's.
    assert (code, out.strip()) == (1, "no loaded ICLR paper is from 2023; years: 2026")


def test_a_long_question_lists_its_results_by_rank_as_json_orders_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Four terms or more: the order fuses the score with a cosine, so the
    # plain output numbers the results instead of printing scores out of order.
    run_cli(capsys, "load")
    query = ("search", "训练时不想用太多显存怎么办", "--limit", "5")
    code, out, _err = run_cli(capsys, *query)
    assert code == 0
    rows = [line.split() for line in out.splitlines() if not line.startswith(" " * 16)][:5]
    assert [row[0] for row in rows] == ["1.", "2.", "3.", "4.", "5."]
    code, out, _err = run_cli(capsys, *query, "--json")
    assert [int(row[1]) for row in rows] == [hit["id"] for hit in json.loads(out)]


# --- bench digest (smaller things) -------------------------------------------


def test_bench_digest_default_posted_scales_with_the_corpus(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_cli(
        capsys,
        "bench",
        "digest",
        "--papers",
        "2000",
        "--subscribers",
        "20",
        "--topics",
        "10",
        "--repeat",
        "1",
        "--json",
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["posted"] == 400
    assert result["same_picks_as_baseline"] is True


@pytest.mark.parametrize("posted", ["2000", "5000"])
def test_bench_digest_refuses_an_empty_comparison(
    capsys: pytest.CaptureFixture[str], posted: str
) -> None:
    code, _out, err = run_cli(
        capsys, "bench", "digest", "--papers", "2000", "--posted", posted, "--repeat", "1"
    )
    assert code == 2
    assert "nothing to compare" in err
    assert err.count("\n") == 1
