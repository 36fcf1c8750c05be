"""Parsing both digest layouts, and every trap the issue lists (table-driven)."""

from __future__ import annotations

import pytest

from paperbot.core.corpus import decode, merge_entries, parse_text, venue_name
from paperbot.core.models import Problem

LINE_HEADER = "📚 预训练¶\n\n🧠 NeurIPS2025 · 3 篇论文解读\n\n"
METADATA = "📌 同领域跨会议浏览： 🧠 NeurIPS2026 (5) · 🔬 ICLR2026 (79)\n\n🔥 高频主题： LLM ×4 · 对齐/RLHF ×2\n\n"


def titles_and_summaries(text: str, file: str = "page.txt") -> list[tuple[str, tuple[str, ...]]]:
    parsed = parse_text(text, file, "预训练")
    return [(e.title, e.summaries) for e in parsed.entries]


@pytest.mark.parametrize(
    ("line", "title", "summary"),
    [
        pytest.param("Plain Title: 中文摘要。", "Plain Title", "中文摘要。", id="simple"),
        pytest.param(
            "Breaking the Frozen Subspace: Importance Sampling for Low-Rank Optimization in LLM "
            "Pretraining: 发现GaLore等方法的子空间会冻结",
            "Breaking the Frozen Subspace: Importance Sampling for Low-Rank Optimization in LLM Pretraining",
            "发现GaLore等方法的子空间会冻结",
            id="title-with-colon",
        ),
        pytest.param(
            'A: B: C Title: 摘要里有冒号: 和全角冒号：还有 \\(\\beta\\) 与 "引号" + × 🚀',
            "A: B: C Title",
            '摘要里有冒号: 和全角冒号：还有 \\(\\beta\\) 与 "引号" + × 🚀',
            id="summary-with-colons-latex-quotes-emoji",
        ),
        pytest.param(
            "ZEUS: Zero-shot Embeddings for Tabular Data: ZEUS 是首个零样本方法",
            "ZEUS: Zero-shot Embeddings for Tabular Data",
            "ZEUS 是首个零样本方法",
            id="summary-starting-with-english",
        ),
        pytest.param(
            "Full Width Sep：全角分隔的摘要",
            "Full Width Sep",
            "全角分隔的摘要",
            id="full-width-separator",
        ),
        pytest.param("No Space:摘要紧贴冒号", "No Space", "摘要紧贴冒号", id="no-space-before-cjk"),
        pytest.param("Trailing Spaces:   摘要   ", "Trailing Spaces", "摘要", id="trailing-spaces"),
    ],
)
def test_line_layout_splits_title_from_summary(line: str, title: str, summary: str) -> None:
    assert titles_and_summaries(LINE_HEADER + line + "\n") == [(title, (summary,))]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            LINE_HEADER + "Only A Title:\n",
            [("Only A Title", ())],
            id="title-only-line",
        ),
        pytest.param(
            "\ufeff" + LINE_HEADER.replace("\n", "\r\n") + "T One: 摘要一\r\nT Two: 摘要二\r\n",
            [("T One", ("摘要一",)), ("T Two", ("摘要二",))],
            id="bom-and-crlf",
        ),
        pytest.param(
            LINE_HEADER + METADATA + "\n\n\nT One: 摘要一\n\n\n\nT Two: 摘要二\n\n",
            [("T One", ("摘要一",)), ("T Two", ("摘要二",))],
            id="metadata-and-odd-blank-lines",
        ),
    ],
)
def test_line_layout_pages(text: str, expected: list[tuple[str, tuple[str, ...]]]) -> None:
    assert titles_and_summaries(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "NeurIPS 2023\n\nFirst Paper\n\n第一段摘要。\n\n第二段摘要。\n\nSecond Paper\n\n只有一段。\n",
            [("First Paper", ("第一段摘要。", "第二段摘要。")), ("Second Paper", ("只有一段。",))],
            id="paragraphs",
        ),
        pytest.param(
            "NeurIPS 2023\n\nTitle Only Paper\n\nNext Paper: With Colon\n\n摘要。\n",
            [("Title Only Paper", ()), ("Next Paper: With Colon", ("摘要。",))],
            id="title-only-then-colon-title",
        ),
        pytest.param(
            "\ufeffNeurIPS 2023\r\n\r\nCRLF Paper  \r\n\r\n摘要。  \r\n",
            [("CRLF Paper", ("摘要。",))],
            id="bom-crlf-trailing-spaces",
        ),
        pytest.param(
            "NeurIPS 2023\nTight Paper\n紧贴标题的摘要。\n\n\n\nLast Paper\n",
            [("Tight Paper", ("紧贴标题的摘要。",)), ("Last Paper", ())],
            id="missing-and-extra-blank-lines",
        ),
    ],
)
def test_block_layout_pages(text: str, expected: list[tuple[str, tuple[str, ...]]]) -> None:
    assert titles_and_summaries(text) == expected


@pytest.mark.parametrize(
    ("text", "venue", "year", "area"),
    [
        (LINE_HEADER + "T: 摘要\n", "NeurIPS", 2025, "预训练"),
        ("📚 对齐¶\n\n🧪 ICML2026 · 1 篇论文解读\n\nT: 摘要\n", "ICML", 2026, "对齐"),
        ("NeurIPS 2023\n\nT\n\n摘要\n", "NeurIPS", 2023, "预训练"),
        ("ICLR 2026\n\nT\n\n摘要\n", "ICLR", 2026, "预训练"),
    ],
)
def test_header_gives_venue_year_area(text: str, venue: str, year: int, area: str) -> None:
    entry = parse_text(text, "x.txt", "预训练").entries[0]
    assert (entry.venue, entry.year, entry.area) == (venue, year, area)


def test_venue_falls_back_to_file_name() -> None:
    entry = parse_text("T One: 摘要\n", "icml-2025.txt", "预训练").entries[0]
    assert (entry.venue, entry.year) == ("ICML", 2025)


def test_no_venue_anywhere_is_reported_not_guessed() -> None:
    parsed = parse_text("T One: 摘要\n", "notes.txt", "预训练")
    assert parsed.entries == ()
    assert parsed.problems[0].reason.startswith("no venue and year")


@pytest.mark.parametrize(
    ("text", "bad_line", "reason_start", "good_titles"),
    [
        (
            LINE_HEADER + "Good: 摘要\n这一行没有标题也没有分隔符\nAlso Good: 摘要\n",
            6,
            "no 'Title: summary'",
            ["Good", "Also Good"],
        ),
        (
            LINE_HEADER + "Good: 摘要\n中文标题: 摘要\nAlso Good: 摘要\n",
            6,
            "no English title",
            ["Good", "Also Good"],
        ),
        (
            "NeurIPS 2023\n\n没有标题的摘要段落。\n\nGood Paper\n\n摘要。\n",
            3,
            "summary paragraph",
            ["Good Paper"],
        ),
    ],
)
def test_bad_line_is_reported_and_rest_loads(
    text: str, bad_line: int, reason_start: str, good_titles: list[str]
) -> None:
    parsed = parse_text(text, "page.txt", "预训练")
    assert [p.line for p in parsed.problems] == [bad_line]
    assert parsed.problems[0].reason.startswith(reason_start)
    assert str(parsed.problems[0]).startswith(f"page.txt:{bad_line}: ")
    assert [e.title for e in parsed.entries] == good_titles


@pytest.mark.parametrize(
    ("data", "ok"),
    [
        ("标题: 摘要".encode(), True),
        ("\ufeff标题".encode(), True),
        ("标题: 摘要".encode("gbk"), False),
        (b"\x00\x01binary", False),
    ],
)
def test_decode_rejects_non_utf8(data: bytes, ok: bool) -> None:
    result = decode(data, "f.txt")
    assert isinstance(result, str) is ok
    if not ok:
        assert isinstance(result, Problem)
        assert result.line is None


def test_sources_are_file_and_line() -> None:
    parsed = parse_text(LINE_HEADER + "A: 一\n\nB: 二\n", "p.txt", "预训练")
    assert [str(e.source) for e in parsed.entries] == ["p.txt:5", "p.txt:7"]


def test_same_paper_twice_keeps_both_summaries_once() -> None:
    text = LINE_HEADER + "Same  Paper: 摘要一\nsame paper: 摘要二\nSame Paper: 摘要一\n"
    records = merge_entries(parse_text(text, "p.txt", "预训练").entries)
    assert len(records) == 1
    assert records[0].summaries == ("摘要一", "摘要二")
    assert records[0].sources == ("p.txt:5", "p.txt:6", "p.txt:7")


@pytest.mark.parametrize(
    ("raw", "name"), [("neurips", "NeurIPS"), ("ICML", "ICML"), ("Foo", "Foo")]
)
def test_venue_names(raw: str, name: str) -> None:
    assert venue_name(raw) == name
