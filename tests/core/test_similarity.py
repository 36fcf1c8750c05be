"""Paper vectors for the digest's diversity: TF-IDF cosine over words and CJK bigrams."""

from __future__ import annotations

import numpy as np
import pytest

from paperbot.core.similarity import TERMS_KEPT, PaperVectors, paper_terms

TEXTS = [
    "Scaling laws for neural language models\n损失随模型规模呈幂律下降。",
    "Scaling Laws for Neural Language Models\n损失随模型规模呈幂律下降（修订版）。",
    "Direct preference optimization\n直接偏好优化，无需奖励模型。",
    "Byte-level models without tokenizers\n字节级模型不需要分词器。",
    "",
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Scaling Laws", ["scaling", "law"]),
        ("幂律下降", ["幂律", "律下", "下降"]),
        ("MoE路由 2024 a", ["moe", "路由"]),
        ("", []),
    ],
)
def test_paper_terms(text: str, expected: list[str]) -> None:
    assert paper_terms(text) == expected


@pytest.mark.parametrize(
    ("a", "b", "low", "high"),
    [
        (0, 0, 0.999, 1.0),  # a paper is itself
        (0, 1, 0.8, 1.0),  # a revised copy is a near-duplicate
        (0, 2, 0.0, 0.2),  # different subjects
        (2, 3, 0.0, 0.2),
        (0, 4, 0.0, 0.0),  # no text: similar to nothing
    ],
)
def test_similarity(a: int, b: int, low: float, high: float) -> None:
    vectors = PaperVectors.build(TEXTS)
    value = float(vectors.similarity(np.array([a], dtype=np.intp), [b])[0, 0])
    assert low <= value <= high
    # Symmetric.
    back = float(vectors.similarity(np.array([b], dtype=np.intp), [a])[0, 0])
    assert value == pytest.approx(back)


def test_rows_are_unit_length_sorted_and_capped() -> None:
    long_text = " ".join(f"word{i}x" for i in range(100))
    vectors = PaperVectors.build([*TEXTS, long_text])
    assert vectors.terms.shape[1] <= TERMS_KEPT
    norms = np.sqrt((vectors.weights**2).sum(axis=1))
    assert norms[:4] == pytest.approx(1.0)
    assert norms[4] == 0.0
    for row in vectors.terms:
        real = row[row >= 0]
        assert list(real) == sorted(real)


def test_empty_vectors_make_everything_dissimilar() -> None:
    vectors = PaperVectors.empty(3)
    assert np.max(vectors.similarity(np.arange(3, dtype=np.intp), [0, 1])) == 0.0
