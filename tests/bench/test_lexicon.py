"""The lexicon mining step: Chinese words by boundary statistics, English
words and phrases, co-occurring title words, and the CLI's known flag."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import pytest

from paperbot.bench import lexicon
from paperbot.bench.lexicon_mining import (
    Candidate,
    Paper,
    chinese_candidates,
    english_candidates,
)

PAPERS = [
    Paper("Data Deduplication at Scale", "本文研究去重对模型的作用，去重很重要。"),
    Paper("Deduplication Helps", "我们发现数据去重可以提升效果。"),
    Paper("Near Deduplication of Web Text", "网页去重，以及近重复检测。"),
    Paper("Quantization Works", "低比特量化的误差分析。"),
]


def _terms(found: list[Candidate]) -> list[str]:
    return [c.term for c in found]


@pytest.mark.parametrize(
    ("term", "expected"),
    [
        ("去重", True),  # free on both sides in three papers
        ("去", False),  # one character: no term
        ("重对", False),  # crosses a word boundary, one paper only
        ("量化", False),  # one paper, below the document frequency
    ],
)
def test_chinese_candidates(term: str, expected: bool) -> None:
    assert (term in _terms(chinese_candidates(PAPERS, min_df=3))) is expected


def test_chinese_candidate_suggests_cooccurring_title_words() -> None:
    found = {c.term: c for c in chinese_candidates(PAPERS, min_df=3)}
    assert found["去重"].df == 3
    assert found["去重"].with_english[0] == ("deduplication", 3)


@pytest.mark.parametrize(
    ("term", "expected"),
    [
        ("deduplication", True),
        ("of", False),  # a stop word
        ("quantization", False),  # one paper
    ],
)
def test_english_candidates(term: str, expected: bool) -> None:
    assert (term in _terms(english_candidates(PAPERS, min_df=3))) is expected


def test_english_phrases_are_counted() -> None:
    assert "data deduplication" in _terms(english_candidates(PAPERS[:1] * 2, min_df=2))


def test_cli_marks_known_terms_and_hides_them_by_default(tmp_path: Path) -> None:
    (tmp_path / "icml-2025.txt").write_text(
        "".join(f"{p.title}: {p.summary}\n" for p in PAPERS), encoding="utf-8"
    )
    vocabulary = tmp_path / "topics.toml"
    vocabulary.write_text(
        '[[topic]]\nid = "q"\nname = "Quantization"\nzh = "量化"\n\n'
        '[[concept]]\nen = ["dedup"]\nzh = ["去重"]\n',
        encoding="utf-8",
    )
    args = argparse.Namespace(corpus=tmp_path, vocabulary=vocabulary, min_df=3, all=False)
    hidden = asyncio.run(lexicon.run(args))
    shown = asyncio.run(lexicon.run(argparse.Namespace(**{**vars(args), "all": True})))
    assert hidden["papers"] == 4
    assert "去重" not in [r["term"] for r in hidden["chinese"]]
    assert {"term": "去重", "df": 3, "known": True} | {"with_english": ["deduplication×3"]} in (
        shown["chinese"]
    )
    assert "去重" in lexicon.render(shown)
