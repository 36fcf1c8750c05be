"""A reader's saved papers as a file: BibTeX, Markdown, CSV or JSON.

Pure: the caller passes the papers and today's date and gets the file's
name and bytes back. BibTeX is written for reference managers (Zotero,
JabRef, biber): `@inproceedings` entries with stable keys, every character
LaTeX treats specially escaped, non-ASCII kept as UTF-8.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal, get_args

from paperbot.core.links import arxiv_search_url
from paperbot.core.models import SavedPaper
from paperbot.core.text import title_key

ExportFormat = Literal["bibtex", "markdown", "csv", "json"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = get_args(ExportFormat)
EXTENSIONS: dict[ExportFormat, str] = {
    "bibtex": "bib",
    "markdown": "md",
    "csv": "csv",
    "json": "json",
}


@dataclass(frozen=True, slots=True)
class ExportFile:
    """A file to attach: its name and its bytes (UTF-8)."""

    filename: str
    data: bytes


def export_saved(saved: Sequence[SavedPaper], fmt: ExportFormat, today: date) -> ExportFile:
    """The saved papers (newest first, as listed) as one file in `fmt`."""
    filename = f"paperbot-saved-{today.isoformat()}.{EXTENSIONS[fmt]}"
    if fmt == "bibtex":
        text = render_bibtex(saved)
    elif fmt == "markdown":
        text = render_markdown(saved, today)
    elif fmt == "csv":
        # Excel opens a UTF-8 CSV with Chinese text correctly only with a BOM.
        return ExportFile(filename, render_csv(saved).encode("utf-8-sig"))
    else:
        text = json.dumps(saved_records(saved), ensure_ascii=False, indent=2) + "\n"
    return ExportFile(filename, text.encode("utf-8"))


# ------------------------------------------------------------------- BibTeX

# LaTeX's special characters, as text-mode commands or escapes.
_LATEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "&": r"\&",
    "_": r"\_",
    "#": r"\#",
    "$": r"\$",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_LATEX_SPECIAL = re.compile("[" + re.escape("".join(_LATEX_ESCAPES)) + "]")
# TeX ligatures that would change the text: -- and --- (dashes), `` and ''
# (curly quotes), ?` and !` (inverted marks). An empty group breaks them.
_LIGATURE = re.compile(r"-(?=-)|`(?=`)|'(?=')|[?!](?=`)")
_KEY_STOPWORDS = frozenset({"a", "an", "the", "on", "of"})
_KEY_WORD = re.compile(r"[A-Za-z0-9]+")


def escape_bibtex(text: str) -> str:
    """`text` as the value of a braced BibTeX field, read back unchanged by a
    LaTeX-aware parser (non-ASCII stays UTF-8: biber and Zotero read it)."""
    escaped = _LATEX_SPECIAL.sub(lambda m: _LATEX_ESCAPES[m.group()], text)
    return _LIGATURE.sub(lambda m: m.group() + "{}", escaped)


def _ascii_words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return _KEY_WORD.findall(folded)


def base_key(title: str, venue: str, year: int) -> str:
    """First meaningful title word + venue + year, e.g. `attention_neurips_2017`."""
    words = [w.lower() for w in _ascii_words(title)]
    word = next((w for w in words if w not in _KEY_STOPWORDS), words[0] if words else "paper")
    venue_part = "".join(_ascii_words(venue)).lower() or "venue"
    return f"{word}_{venue_part}_{year}"


def _suffix(index: int) -> str:
    """ "", "b", "c", ..., "z", "aa", "ab", ...: the de-duplicating suffixes."""
    if index == 0:
        return ""
    letters = ""
    index += 1  # "b" for the second
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def citation_keys(saved: Sequence[SavedPaper]) -> list[str]:
    """One unique key per paper, in the given order.

    Stable: papers sharing a base key are told apart in the order of their
    own identity (title key, then id), not of when they were saved, so the
    same papers always export with the same keys.
    """
    groups: dict[str, list[int]] = {}
    for index, item in enumerate(saved):
        paper = item.paper
        groups.setdefault(base_key(paper.title, paper.venue, paper.year), []).append(index)
    keys = [""] * len(saved)
    for base, members in groups.items():
        members.sort(key=lambda i: (title_key(saved[i].paper.title), saved[i].paper.id))
        # A base key ends in the year's digits, a suffix in a letter: the
        # suffixed keys of one group never meet another group's keys.
        for rank, index in enumerate(members):
            keys[index] = base + _suffix(rank)
    return keys


def render_bibtex(saved: Sequence[SavedPaper]) -> str:
    entries = []
    for key, item in zip(citation_keys(saved), saved, strict=True):
        paper = item.paper
        fields = [
            ("title", escape_bibtex(paper.title)),
            ("booktitle", escape_bibtex(f"{paper.venue} {paper.year}")),
            ("year", str(paper.year)),
            ("note", escape_bibtex(paper.summary)),
            # URLs are verbatim fields (biblatex, hyperref's \url): not escaped.
            # The encoded link holds no braces or spaces, so it cannot end the value.
            ("url", arxiv_search_url(paper.title)),
        ]
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
        entries.append(f"@inproceedings{{{key},\n{body},\n}}\n")
    return "\n".join(entries)


# ------------------------------------------------------------------ Markdown

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")


def _markdown_text(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def render_markdown(saved: Sequence[SavedPaper], today: date) -> str:
    lines = [f"# Saved papers ({len(saved)}, exported {today.isoformat()})", ""]
    for item in saved:
        paper = item.paper
        lines.append(
            f"- **[{_markdown_text(paper.title)}]({arxiv_search_url(paper.title)})**"
            f" · {_markdown_text(paper.venue)} {paper.year}"
            f" · saved {item.saved_at.date().isoformat()}"
        )
        for paragraph in paper.summary.split("\n"):
            if paragraph.strip():
                lines.append(f"  > {paragraph.strip()}")
        lines.append("")
    return "\n".join(lines)


# ----------------------------------------------------------------- CSV, JSON

CSV_COLUMNS = ("title", "venue", "year", "area", "summary", "url", "saved_at", "retired")
# A cell starting with these is a formula to a spreadsheet (CSV injection).
_FORMULA_START = ("=", "+", "@", "\t", "\r")


def saved_records(saved: Sequence[SavedPaper]) -> list[dict[str, Any]]:
    """Saved papers as plain JSON-ready records, newest first."""
    return [
        {
            "title": item.paper.title,
            "venue": item.paper.venue,
            "year": item.paper.year,
            "area": item.paper.area,
            "summary": item.paper.summary,
            "url": arxiv_search_url(item.paper.title),
            "saved_at": item.saved_at.isoformat(),
            "retired": item.retired,
        }
        for item in saved
    ]


def _cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def render_csv(saved: Sequence[SavedPaper]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\r\n")
    writer.writeheader()
    for record in saved_records(saved):
        writer.writerow({name: _cell(value) for name, value in record.items()})
    return out.getvalue()
