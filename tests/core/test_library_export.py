"""Saved papers as files: BibTeX read back by a real parser, Markdown, CSV, JSON."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, date, datetime, timedelta

import pytest
from bibtexparser.entrypoint import parse_string
from bibtexparser.library import Library
from bibtexparser.middlewares.latex_encoding import LatexDecodingMiddleware

from paperbot.core.library_export import (
    EXPORT_FORMATS,
    ExportFormat,
    base_key,
    citation_keys,
    escape_bibtex,
    export_saved,
    render_bibtex,
)
from paperbot.core.links import arxiv_search_url
from paperbot.core.models import Paper, SavedPaper

TODAY = date(2026, 11, 30)
SAVED_AT = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)

# Titles and summaries with everything BibTeX and LaTeX treat specially.
TRICKY_TITLES = (
    "Attention Is All You Need: Transformers & Friends",
    "100% Recall: {Braces} in $Titles$",
    "Snake_case #hashtags ~tildes and back\\slashes",
    "Dashes -- and --- quotes `` '' ?` !`",
    "QLoRA: Efficient Finetuning of Quantized LLMs",
    "数据去重：大规模预训练语料 & 质量",
    "Ünïcödé Títlé: naïve café",
    "{Nested {braces}} and a lone } brace {",
)
TRICKY_SUMMARIES = (
    "本文提出一种新的注意力机制，速度提升 50%，成本 $0.01。",
    "第一段摘要。\n\n第二段：使用 {花括号} 与 _下划线_ #标签 & 符号。",
    "A plain English summary with 3 sentences. Second! Third?",
)


def paper(index: int, title: str, summary: str, venue: str = "NeurIPS", year: int = 2023) -> Paper:
    return Paper(
        id=index,
        title=title,
        venue=venue,
        year=year,
        area="预训练",
        summaries=tuple(summary.split("\n\n")),
        sources=("neurips-2023.txt",),
    )


def hundred_saved() -> list[SavedPaper]:
    items = []
    for index in range(100):
        title = f"{TRICKY_TITLES[index % len(TRICKY_TITLES)]} (part {index})"
        summary = TRICKY_SUMMARIES[index % len(TRICKY_SUMMARIES)]
        venue = ("NeurIPS", "ICML", "ACL")[index % 3]
        item = paper(index + 1, title, summary, venue, 2020 + index % 5)
        items.append(SavedPaper(item, SAVED_AT - timedelta(minutes=index), retired=False))
    return items


def parse(text: str, *, decode: bool) -> Library:
    middleware = [LatexDecodingMiddleware()] if decode else []
    library = parse_string(text, append_middleware=middleware)
    assert library.failed_blocks == []
    return library


def test_hundred_papers_round_trip_through_a_real_parser() -> None:
    saved = hundred_saved()
    text = render_bibtex(saved)
    decoded = parse(text, decode=True)
    raw = parse(text, decode=False)
    assert len(decoded.entries) == 100
    assert [e.key for e in decoded.entries] == citation_keys(saved)
    for entry, raw_entry, item in zip(decoded.entries, raw.entries, saved, strict=True):
        fields = {f.key: f.value for f in entry.fields}
        assert entry.entry_type == "inproceedings"
        assert fields["title"] == item.paper.title
        assert fields["booktitle"] == f"{item.paper.venue} {item.paper.year}"
        assert fields["year"] == str(item.paper.year)
        assert fields["note"] == item.paper.summary
        # A URL is verbatim (biblatex, hyperref): compared undecoded.
        assert raw_entry.fields_dict["url"].value == arxiv_search_url(item.paper.title)


def test_keys_unique_and_independent_of_save_order() -> None:
    saved = hundred_saved()
    keys = citation_keys(saved)
    assert len(set(keys)) == len(keys)
    by_id = dict(zip((s.paper.id for s in saved), keys, strict=True))
    shuffled = saved[::-1]
    assert dict(zip((s.paper.id for s in shuffled), citation_keys(shuffled), strict=True)) == by_id


@pytest.mark.parametrize(
    ("title", "venue", "year", "key"),
    [
        ("Attention Is All You Need", "NeurIPS", 2017, "attention_neurips_2017"),
        ("The Curious Case of Neural Text Degeneration", "ICLR", 2020, "curious_iclr_2020"),
        ("On the Dangers of Stochastic Parrots", "FAccT", 2021, "dangers_facct_2021"),
        ("Ünïcödé Títlé", "ACL", 2024, "unicode_acl_2024"),
        ("数据去重", "ACL", 2024, "paper_acl_2024"),
        ("LoRA数据: low rank", "EMNLP Findings", 2023, "lora_emnlpfindings_2023"),
        ("A", "ICML", 2022, "a_icml_2022"),
    ],
)
def test_base_key(title: str, venue: str, year: int, key: str) -> None:
    assert base_key(title, venue, year) == key


def test_colliding_keys_get_letters() -> None:
    saved = [
        SavedPaper(paper(i, f"Scaling laws {i}", "s"), SAVED_AT, retired=False) for i in range(3)
    ]
    assert sorted(citation_keys(saved)) == [
        "scaling_neurips_2023",
        "scaling_neurips_2023b",
        "scaling_neurips_2023c",
    ]


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("a & b", r"a \& b"),
        ("50%", r"50\%"),
        ("{x}", r"\{x\}"),
        ("$5 #1 a_b", r"\$5 \#1 a\_b"),
        ("back\\slash", r"back\textbackslash{}slash"),
        ("x^2 ~y", r"x\textasciicircum{}2 \textasciitilde{}y"),
        ("a--b", "a-{}-b"),
        ("``q''", "`{}`q'{}'"),
        ("中文：摘要", "中文：摘要"),
    ],
)
def test_escape_bibtex(text: str, escaped: str) -> None:
    assert escape_bibtex(text) == escaped


def test_caret_reads_back_as_a_latex_command() -> None:
    # pylatexenc decodes \textasciicircum to U+02C6; the raw value is what LaTeX needs.
    saved = [SavedPaper(paper(1, "x^2 scaling", "s"), SAVED_AT, retired=False)]
    raw = parse(render_bibtex(saved), decode=False)
    assert raw.entries[0].fields_dict["title"].value == r"x\textasciicircum{}2 scaling"


@pytest.mark.parametrize(
    ("fmt", "filename"),
    [
        ("bibtex", "paperbot-saved-2026-11-30.bib"),
        ("markdown", "paperbot-saved-2026-11-30.md"),
        ("csv", "paperbot-saved-2026-11-30.csv"),
        ("json", "paperbot-saved-2026-11-30.json"),
    ],
)
def test_file_names_say_what_they_are(fmt: ExportFormat, filename: str) -> None:
    assert fmt in EXPORT_FORMATS
    assert export_saved(hundred_saved()[:2], fmt, TODAY).filename == filename


def test_json_export_keeps_every_field() -> None:
    saved = hundred_saved()[:5]
    records = json.loads(export_saved(saved, "json", TODAY).data.decode("utf-8"))
    assert [r["title"] for r in records] == [s.paper.title for s in saved]
    assert records[1]["summary"] == saved[1].paper.summary
    assert records[0]["saved_at"] == SAVED_AT.isoformat()
    assert records[0]["url"] == arxiv_search_url(saved[0].paper.title)


def test_csv_export_reads_back_and_defuses_formulas() -> None:
    saved = hundred_saved()[:3]
    formula = SavedPaper(paper(99, "=HYPERLINK(evil)", "s"), SAVED_AT, retired=True)
    data = export_saved([*saved, formula], "csv", TODAY).data
    assert data.startswith(b"\xef\xbb\xbf")  # Excel needs the BOM for Chinese
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    assert [r["title"] for r in rows[:3]] == [s.paper.title for s in saved]
    assert rows[1]["summary"] == saved[1].paper.summary
    assert rows[3]["title"] == "'=HYPERLINK(evil)"
    assert rows[3]["retired"] == "True"


def test_markdown_export_links_and_escapes() -> None:
    saved = [SavedPaper(paper(1, "Bold *claims* [v2]", "第一段\n\n第二段"), SAVED_AT, False)]
    text = export_saved(saved, "markdown", TODAY).data.decode("utf-8")
    assert r"**[Bold \*claims\* \[v2\]](https://arxiv.org/search/?" in text
    assert "  > 第一段" in text
    assert "  > 第二段" in text
