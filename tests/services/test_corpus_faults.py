"""Hostile and damaged corpora (issue 13, items 8 and 9, and folder loading)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperbot.cli import main
from paperbot.core.corpus import PARSER_VERSION, CorpusLimits, decode_page, parse_text
from paperbot.core.models import Problem
from paperbot.storage.db import Database
from tests.support.corpus import LoadPages, refuse_listing

HEADER = "📚 预训练¶\n\n🧠 ICML2026 · 3 篇论文解读\n\n"
GOOD = [f"Good Paper Number {n}: 这是第{n}篇论文的摘要。" for n in range(1, 6)]


@pytest.fixture(autouse=True)
def isolated_env(cli_env: Path) -> Path:
    return cli_env


def load_json(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, dict[str, object]]:
    code = main(["load", "--json", *map(str, paths)])
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, dict)
    return code, data


def listed_titles(capsys: pytest.CaptureFixture[str]) -> list[str]:
    main(["list", "--json"])
    return [p["title"] for p in json.loads(capsys.readouterr().out)]


# --- item 9: one bad byte ----------------------------------------------------


def test_one_bad_byte_no_longer_rejects_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [*GOOD[:2], "Bad Byte Paper: 摘要\xff在这里。", *GOOD[2:]]
    data = (HEADER + "\n".join(lines) + "\n").encode().replace("\xff".encode(), b"\xff")
    page = tmp_path / "icml-2026.txt"
    page.write_bytes(data)
    code, report = load_json(capsys, page)
    assert code == 1
    assert report["new"] == 6
    assert report["warnings"] == [
        {
            "file": "icml-2026.txt",
            "line": 7,
            "reason": "bytes that are not UTF-8, replaced by U+FFFD (the line was loaded)",
        }
    ]
    assert "Bad Byte Paper" in listed_titles(capsys)


@pytest.mark.parametrize(
    ("data", "bad_lines"),
    [
        (b"A: \xe6\x91\x98\n\xffB: x\nC: y\nD: z\nE: w\nF: v\nG: u\nH: t\nI: s\nJ: r\n", [2]),
        (b"\xef\xbb\xbfA: \xe6\x91\x98\nB: \xe6\x91\n" + b"C: \xe6\x91\x98\n" * 20, [2]),
    ],
)
def test_bad_bytes_are_reported_per_line(data: bytes, bad_lines: list[int]) -> None:
    decoded = decode_page(data, "f.txt")
    assert not isinstance(decoded, Problem)
    text, problems = decoded
    assert "\ufffd" in text
    assert not text.startswith("\ufeff")
    assert [p.line for p in problems] == bad_lines
    assert all(p.warning for p in problems)


@pytest.mark.parametrize(
    "data",
    ["标题: 摘要\n第二行: 摘要\n".encode("gbk"), bytes(range(128, 256)) * 50, b"ok\x00binary"],
)
def test_files_in_another_encoding_are_still_skipped(data: bytes) -> None:
    assert isinstance(decode_page(data, "f.txt"), Problem)


def test_parser_version_was_bumped_so_rejected_pages_are_parsed_again() -> None:
    assert PARSER_VERSION >= 2


# --- item 8: limits ----------------------------------------------------------

SMALL = CorpusLimits(
    max_file_bytes=10_000, max_title_chars=100, max_summary_chars=200, max_entries_per_file=50
)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("T" * 150 + ": 摘要。", "title of 150 characters, longer than corpus.max_title_chars"),
        ("Fine Title: " + "摘" * 250, "summary of 250 characters, longer than corpus.max_summary"),
        ("x" * 400, "line of 400 characters, longer than a title and summary may be"),
        ("#$%^&*() 123 ~~ a: 摘要。", "title looks like noise"),
        ("1234 5678 9 x: 摘要。", "title looks like noise"),
    ],
)
def test_overlong_or_noisy_lines_are_reported_per_line(line: str, reason: str) -> None:
    parsed = parse_text(HEADER + "\n".join([GOOD[0], line, GOOD[1]]), "p.txt", "预训练", SMALL)
    assert [e.title for e in parsed.entries] == ["Good Paper Number 1", "Good Paper Number 2"]
    assert [(p.line, p.reason.startswith(reason)) for p in parsed.problems] == [(6, True)]


def test_block_layout_overlong_summary_is_reported() -> None:
    text = "ICML 2026\n\nA Real Title\n\n" + "摘" * 150 + "\n\n" + "要" * 150 + "\n"
    parsed = parse_text(text, "p.txt", "预训练", SMALL)
    assert parsed.entries == ()
    assert parsed.problems[0].line == 3
    assert "corpus.max_summary_chars" in parsed.problems[0].reason


def test_too_many_entries_skip_the_page() -> None:
    lines = [f"Paper Title {n}: 摘要{n}。" for n in range(60)]
    parsed = parse_text(HEADER + "\n".join(lines), "p.txt", "预训练", SMALL)
    assert parsed.entries == ()
    assert "more than corpus.max_entries_per_file (50): skipped" in parsed.problems[0].reason


def test_repeated_junk_titles_give_a_warning() -> None:
    lines = [f"Junk Title Again: 摘要{n}。" for n in range(30)]
    parsed = parse_text(HEADER + "\n".join(lines), "p.txt", "预训练", SMALL)
    assert [p.warning for p in parsed.problems] == [True]
    assert "only 1 distinct titles among 30 papers" in parsed.problems[0].reason


def test_a_big_junk_file_with_a_valid_header_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "paperbot.toml"
    config.write_text("[corpus]\nmax_file_mb = 1\n")
    monkeypatch.setenv("PAPERBOT_CONFIG", str(config))
    page = tmp_path / "icml-2026.txt"
    junk = "\n".join(f"Junk {n} qq: 垃圾" for n in range(80_000))
    page.write_text(HEADER + junk, encoding="utf-8")
    assert page.stat().st_size > 1024 * 1024
    code, report = load_json(capsys, page)
    assert code == 1
    assert report["new"] == 0
    assert report["skipped"] == [
        {
            "file": "icml-2026.txt",
            "line": None,
            "reason": "larger than corpus.max_file_mb (1 MB): skipped",
        }
    ]


def test_shipped_corpus_is_within_the_default_limits(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = load_json(capsys)
    assert code == 0
    assert report["skipped"] == []
    assert report["warnings"] == []


# --- folders -------------------------------------------------------------------


def test_upper_case_extensions_load_and_subfolders_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "pages"
    (folder / "older").mkdir(parents=True)
    (folder / ".git").mkdir()
    (folder / "ICML-2026.TXT").write_text(HEADER + GOOD[0] + "\n", encoding="utf-8")
    code, report = load_json(capsys, folder)
    assert report["files"] == 1
    assert report["new"] == 1
    assert code == 1
    assert report["warnings"] == [
        {
            "file": "older/",
            "line": None,
            "reason": "a subfolder: not loaded (folders are not searched recursively; "
            "name it to load it)",
        }
    ]


def test_an_unreadable_folder_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    refuse_listing(monkeypatch, folder)
    assert main(["load", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err == f"paperbot: cannot read folder {folder}: Permission denied\n"


@pytest.mark.parametrize("max_bytes", [1 << 40, 1 << 62])
async def test_a_generous_size_limit_does_not_allocate_it_up_front(
    db: Database, bundled_corpus: Path, max_bytes: int, load_pages: LoadPages
) -> None:
    # The benchmarks allow 1 TB per page; reading must not ask for that much memory.
    limits = CorpusLimits(max_file_bytes=max_bytes)
    report = await load_pages(db, bundled_corpus, limits=limits)
    assert report.new == 292
    assert report.clean
