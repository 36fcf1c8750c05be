"""Long queries: stage 2's order fused by reciprocal rank with a TF-IDF
cosine between the query and each candidate's title and summary."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest

from paperbot.core.search import (
    FUSION_MIN_TERMS,
    SearchIndex,
    Term,
    fuse_ranks,
    fused_order,
    parse_query,
    query_cosines,
    rank,
    split_unknown_runs,
    stage1_scores,
    word_key,
)
from paperbot.core.text import latin_words, tokens
from tests.support.search import index_of, real_index

PAPERS = [
    ("Scaling Data-Constrained Language Models", "数据受限时重复训练多个 epoch 的收益递减。"),
    ("Repetition In Repetition Out", "重复的数据导致文本退化，重复 repetition 越多越糟。"),
    ("Deduplicating Training Data", "去重让训练数据更干净。"),
    ("Tree of Thoughts", "在思维树上搜索、前瞻与回溯。"),
    ("Language Models Are Few-Shot Learners", "少样本学习。"),
]


@pytest.mark.parametrize(
    ("cosines", "weight", "order"),
    [
        # Ranks 1, 2, 3 by stage 2; the cosine ranks them 3, 1, 2.
        ([0.0, 1.0, 0.5], 1.0, [1, 0, 2]),
        # A lighter cosine moves nothing over one place only.
        ([0.0, 1.0, 0.5], 0.3, [0, 1, 2]),
        # Equal cosines keep stage 2's order.
        ([0.2, 0.2, 0.2], 1.0, [0, 1, 2]),
        # Far enough down the cosine's order, the first place is lost.
        ([0.0, 0.9, 0.8, 0.7, 0.6, 0.5], 0.3, [1, 0, 2, 3, 4, 5]),
    ],
)
def test_fuse_ranks(cosines: list[float], weight: float, order: list[int]) -> None:
    assert fuse_ranks(np.array(cosines), weight) == order


def _plain_grams(tok: str) -> list[int]:
    """A token's keys written out: its stemmed word, or its CJK bigrams."""
    if tok.isascii():
        return [word_key(w) for w in latin_words(tok)]
    return [(3 << 40) | (ord(a) << 18) | ord(b) for a, b in itertools.pairwise(tok)]


def _reference_cosine(index: SearchIndex, pos: int, query: dict[int, float]) -> float:
    """The cosine written out plainly: CJK bigrams and stemmed words counted."""
    counts: Counter[int] = Counter()
    for tok in tokens(index.titles[pos] + " " + index.summaries[pos]):
        counts.update(_plain_grams(tok))
    n = index.size
    weights = {}
    for key, tf in counts.items():
        df = 0
        for field in (index.title, index.summary):
            at = int(field.lookup(np.array([key], dtype=np.int64))[0])
            df += int(field.df(np.array([at]))[0]) if at >= 0 else 0
        weights[key] = (1 + math.log(tf)) * math.log1p(n / max(df, 1))
    norm = math.sqrt(sum(w * w for w in weights.values()))
    return sum(q * weights.get(k, 0.0) for k, q in query.items()) / norm


@pytest.mark.parametrize(
    "terms",
    [
        (Term("repetition"), Term("数据")),
        (Term("repeated", ("重复",)), Term("epochs"), Term("训练数据")),
        (Term("tree", ("思维树",)), Term("search", ("搜索",), alt_weight=0.5)),
    ],
)
def test_query_cosines_match_the_plain_computation(terms: Sequence[Term]) -> None:
    index = index_of(PAPERS)
    weights = [1.0 + i for i in range(len(terms))]
    query: dict[int, float] = {}
    for term, weight in zip(terms, weights, strict=True):
        for text in (term.text, *term.alternatives):
            share = weight * (1.0 if text == term.text else term.weight_of(text))
            for tok in tokens(text):
                for key in _plain_grams(tok):
                    query[key] = max(query.get(key, 0.0), share)
    positions = list(range(index.size))
    found = query_cosines(index, positions, terms, weights)
    expected = [_reference_cosine(index, p, query) for p in positions]
    assert found.tolist() == pytest.approx(expected, rel=1e-9)
    assert max(found.tolist()) > 0


def test_short_queries_keep_stage_2_order() -> None:
    index = index_of(PAPERS)
    terms = tuple(Term(w) for w in ("repetition", "data", "epochs")[: FUSION_MIN_TERMS - 1])
    assert fused_order(index, [4, 3, 2, 1, 0], terms, [1.0] * len(terms)) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    "text",
    [
        "what happens when you train for several epochs on the same limited text",
        "why do transformers fail on inputs longer than they were trained on?",
    ],
)
def test_a_long_query_is_stage_2_order_fused(text: str) -> None:
    """Fusion reorders what stage 2 found, by `fused_order`: the same papers
    come back, and the cosine moves some of them."""
    index = real_index()
    query = parse_query(text)
    terms = split_unknown_runs(index, query.terms)
    assert len(terms) >= FUSION_MIN_TERMS
    plain = rank(index, query, fuse=False).ids
    fused = rank(index, query).ids
    positions = [int(np.flatnonzero(index.ids == i)[0]) for i in plain]
    order = fused_order(index, positions, terms, stage1_scores(index, terms)[1])
    assert fused == tuple(plain[i] for i in order)
    assert fused != plain


def test_a_short_query_is_not_fused() -> None:
    index = real_index()
    query = parse_query("speculative decoding")
    assert rank(index, query).ids == rank(index, query, fuse=False).ids
