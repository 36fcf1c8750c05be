"""A concept's -ing term and the -ed form the shipped pages use are one
concept ("fine-tuning" and "fine-tuned", "pretraining" and "pretrained"): a
query or keyword saying either reaches the other's translation (微调,
预训练). The shipped vocabulary must keep every such form the pages say in
the concept's table; this file checks it does."""

from __future__ import annotations

import re
from functools import cache

import pytest

from paperbot.core.search import parse_query
from tests.support.search import real_papers, shipped_table
from tests.support.topics import shipped_vocabulary


@cache
def _pages_text() -> str:
    return " ".join(f"{p.title} {' '.join(p.summaries)}".lower() for p in real_papers())


def participles(term: str) -> list[str]:
    """The -ed form of an -ing term's verb: tuning -> tuned, gating ->
    gated, mapping -> mapped (the -ing stem spells the -ed one)."""
    if not term.endswith("ing") or len(term) <= 5:
        return []
    return [term[:-3] + "ed"]


@pytest.mark.parametrize(
    ("term", "forms"),
    [
        ("fine-tuning", ["fine-tuned"]),
        ("pretraining", ["pretrained"]),
        ("gating", ["gated"]),
        ("grokking", ["grokked"]),
        ("king", []),  # too short to be a verb's -ing
        ("scale", []),
    ],
)
def test_participles(term: str, forms: list[str]) -> None:
    assert participles(term) == forms


def test_every_participle_the_pages_use_is_in_its_concept() -> None:
    text = _pages_text()
    missing = []
    for concept in shipped_vocabulary().concepts:
        english = {term.lower() for term in concept.en}
        for term in concept.en:
            for form in participles(term.lower()):
                said = re.search(rf"(?<![a-z]){re.escape(form)}(?![a-z])", text)
                if said and form not in english:
                    missing.append((term, form))
    assert missing == []


@pytest.mark.parametrize(
    ("query", "translation"),
    [("fine-tuned models", "微调"), ("pretrained vision transformers", "预训练")],
)
def test_a_participle_in_a_query_reaches_the_translation(query: str, translation: str) -> None:
    terms = parse_query(query, expansions=shipped_table()).terms
    assert any(translation in term.alternatives for term in terms)
