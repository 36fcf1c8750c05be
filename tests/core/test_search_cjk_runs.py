"""An unknown Chinese run of a query is cut into the words the summaries
use (`core.search.split_unknown_runs`), each weighed by its own document frequency."""

from __future__ import annotations

import pytest

from paperbot.core.search import (
    SearchIndex,
    Term,
    parse_query,
    rank,
    split_unknown_runs,
)
from tests.support.search import index_of

# Each word in two summaries at least, so a corpus word (MIN_PIECE_DF).
PAPERS = [
    ("Loss Spikes in Pretraining", "大模型训练中的损失尖峰。"),
    ("Stable Optimizers", "训练时不会出现发散。"),
    ("Few-Step Diffusion", "扩散模型只用很少步数采样，步数很少。"),
    ("Distilled Samplers", "很少步数也能生成。"),
    ("Scaling Study", "大模型的训练成本。"),
    ("Instabilities", "训练后期会出现震荡，会出现尖峰。"),
    ("Filler", "其他内容。"),
]


def make_index() -> SearchIndex:
    return index_of(PAPERS)


@pytest.mark.parametrize(
    ("term", "pieces"),
    [
        # Cut into corpus words; particles and leftover characters go.
        ("大模型训练会出现", ("大模型", "训练", "会出现")),
        ("用很少的步数", ("很少", "步数")),
        # A run the summaries hold whole stays whole.
        ("很少步数", ("很少步数",)),
        # Too short to cut, or not Chinese.
        ("步数", ("步数",)),
        ("loss", ("loss",)),
        # Nothing the corpus says: the run stays rather than vanish.
        ("完全陌生词语", ("完全陌生词语",)),
    ],
)
def test_unknown_runs_are_cut_into_corpus_words(term: str, pieces: tuple[str, ...]) -> None:
    assert tuple(t.text for t in split_unknown_runs(make_index(), (Term(term),))) == pieces


def test_a_run_with_aliases_is_left_as_it_is() -> None:
    term = Term("大模型训练会出现", alternatives=("llm",))
    assert split_unknown_runs(make_index(), (term,)) == (term,)


@pytest.mark.parametrize(
    ("query", "expected_top"),
    [
        # Whole, the run is in one summary only: its pieces find both papers
        # on spikes (会出现 ... 尖峰 in paper 6).
        ("大模型训练会出现损失尖峰", {1, 6}),
        ("扩散模型怎样用很少的步数生成", {3, 4}),
    ],
)
def test_questions_with_unknown_runs_find_their_papers(query: str, expected_top: set[int]) -> None:
    ids = rank(make_index(), parse_query(query)).ids
    assert set(ids[: len(expected_top)]) == expected_top
