"""A line-layout title line is split once, with the same result as the
reference split (the parser before its fast path, kept here)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

from paperbot.core import corpus
from paperbot.core.corpus import parse_text
from paperbot.core.text import collapse_whitespace, has_cjk


def reference_split(line: str) -> tuple[str, str] | None:
    """`_split_title` as it was: every separator listed, CJK looked for in the title."""
    first_cjk = corpus._CJK_CHAR.search(line)
    head = line[: first_cjk.start() + 1] if first_cjk else line
    candidates = [m for m in corpus._SEPARATOR.finditer(head) if m.start() > 0]
    if not candidates:
        return None
    sep = candidates[-1] if first_cjk else candidates[0]
    title, summary = line[: sep.start()].strip(), line[sep.end() :].strip()
    if not (any(ch.isalpha() for ch in title) and not has_cjk(title)):
        return None
    return title, summary


@pytest.mark.parametrize(
    "line",
    [
        "Plain Title: 中文摘要。",
        "A: B: C Title: 摘要里有冒号: 和全角冒号：还有",
        "Title：全角冒号摘要",
        "Title:摘要紧贴",
        "Bare Title:",
        "No CJK: at all: here",
        "3D Gaussians: 三维",
        '"Quoted" Title: 摘要',
        "12345: 67890",
        "!!!: ???",
        ": 没有标题",
        "中文标题: 中文摘要",
        "No separator at all",
        "Title 中文: 摘要",
        "Ünïcode Títle: 摘要",
        "Title:  spaces   : 摘要",
        "x",
        "",
        "a:b 中文",
        "Title:\u3000 摘要",
        "Title:\u3000",
        "A: B: no CJK at all",
        "x:y:z",
        "Title: 「引号」开头",
        "Title:「引号」",
        "：全角开头",
        "T：a：b 中",
        "Title \t:\t 摘要 : 还有",
    ],
)
def test_split_matches_reference(line: str) -> None:
    assert corpus._split_title(line) == reference_split(line)


def counting(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    seen: Counter[str] = Counter()
    split: Callable[[str], tuple[str, str] | None] = corpus._split_title

    def count(line: str) -> tuple[str, str] | None:
        seen[line] += 1
        return split(line)

    monkeypatch.setattr(corpus, "_split_title", count)
    return seen


def test_line_layout_splits_each_line_once(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [f"Paper Number {i}: 第{i}篇的摘要" for i in range(40)]
    lines.insert(7, "not a paper line")
    text = "🧠 NeurIPS2025 · 40 篇论文解读\n\n" + "\n".join(lines)
    seen = counting(monkeypatch)
    parsed = parse_text(text, "page.txt", "预训练")
    assert [e.title for e in parsed.entries] == [f"Paper Number {i}" for i in range(40)]
    assert [(p.line, p.reason) for p in parsed.problems] == [
        (10, "no 'Title: summary' separator on this line: skipped")
    ]
    assert set(seen) == set(lines)
    assert max(seen.values()) == 1


@pytest.mark.parametrize(
    "text", ["a b", "a  b", "a\tb", "a\u3000b", "a\xa0b", "摘要 中文", "a\u200bb", "a\x85b", "x"]
)
def test_collapse_of_stripped_text_is_collapse_whitespace(text: str) -> None:
    assert corpus._collapse_stripped(text) == collapse_whitespace(text)
