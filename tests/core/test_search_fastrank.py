"""The fast re-ranker gives exactly `rerank_one`'s scores (it only skips work)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from paperbot.bench.search_queries import QUERIES
from paperbot.core.search import (
    QueryTables,
    Term,
    parse_query,
    rank,
    rerank_one,
    split_unknown_runs,
    stage1_scores,
    term_scores,
    term_weight,
    top_candidates,
)
from tests.support.search import fast_and_plain_scores, real_index, shipped_tables

VENUES = ("ICLR", "ICML", "NeurIPS")
EXPANSIONS = {
    "mixture of experts": ("混合专家", "moe"),
    "混合专家": ("mixture of experts", "moe"),
    "moe": ("mixture of experts", "混合专家"),
}


@pytest.mark.parametrize(
    "query",
    [
        "speculative decoding",
        "data selection for language models",
        "language model scaling law",
        "shampo optimizer",
        "toolformr",
        "speculativ decodng",
        "quantizaton",
        "refined web",
        "refinedweb",
        "scissor hands",
        "scisorhands",
        "QLoRA",
        "lora",
        "DPO",
        "optimisation",
        "secretly a reward model",
        "数据去重",
        "权重衰减和批大小",
        "熵",
        "RoPE 单头",
        "Pre-LN 方差",
        "MoE 路由",
        "混合专家",
        "mixture of experts",
        "NeurIPS 2023 QLoRA",
        "zzzz qqqq",
    ],
)
def test_fast_scores_equal_rerank_one(query: str) -> None:
    fast, plain = fast_and_plain_scores(query, QueryTables(EXPANSIONS), VENUES)
    assert fast == plain


@pytest.mark.parametrize("query", QUERIES)
def test_fast_scores_equal_rerank_one_with_the_shipped_tables(query: str) -> None:
    """The bench's keywords and questions, parsed as the app parses them:
    English aliases and phrases of several words (read from the postings
    by the fast scorer), translations and synonyms."""
    fast, plain = fast_and_plain_scores(query, shipped_tables(), VENUES)
    assert fast == plain


@pytest.mark.parametrize(
    "query",
    [
        "data selection for language models",
        "how do I make pretraining data less redundant?",
        "mixture of experts 路由",
        "RoPE 单头 外推",
        "熵",
        "zzzz qqqq",
    ],
)
def test_stage1_sums_postings_as_the_terms_own_scores_do(query: str) -> None:
    """Stage 1 sums every plain term's postings in one pass; it must equal
    the weighted mean of each term's own scores (`term_scores`)."""
    index = real_index()
    terms = parse_query(query, venues=VENUES, expansions=EXPANSIONS).terms
    # Each term once with aliases (the dense path) and once without (the summed one).
    for chosen in (terms, [Term(t.text) for t in terms]):
        got, weights = stage1_scores(index, chosen)
        per_term = [term_scores(index, t) for t in chosen]
        assert weights == [term_weight(t, s.weight) for t, s in zip(chosen, per_term, strict=True)]
        expected = sum(w * s.scores for w, s in zip(weights, per_term, strict=True)) / sum(weights)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
        assert got.any() == (query != "zzzz qqqq")


@pytest.mark.parametrize(("query", "highlight"), [("speculative decoding", 2), ("QLoRA", 0)])
def test_highlight_only_for_the_first_results(query: str, highlight: int) -> None:
    parsed = parse_query(query, venues=VENUES)
    full = rank(real_index(), parsed, limit=5)
    part = rank(real_index(), parsed, limit=5, highlight=highlight)
    assert part.ids == full.ids
    assert part.scores == full.scores
    assert part.matched[:highlight] == full.matched[:highlight]
    assert all(m == () for m in part.matched[highlight:])
    assert any(full.matched)


@pytest.mark.parametrize(
    "query",
    [
        "speculative decoding",
        "refined web",
        "scisorhands",
        "lora",
        "RoPE 单头 外推",
        "mixture of experts 路由",
        "how do I make pretraining data less redundant?",
        "why does the loss spike when training large models with adam",
        "为什么大模型训练会出现损失尖峰？",
    ],
)
def test_highlight_is_rerank_ones_matches(query: str) -> None:
    """The highlight skips the terms stage 2 found nowhere in a paper; what
    it shows must still be `rerank_one`'s strings, paper by paper."""
    index = real_index()
    parsed = parse_query(query, venues=VENUES, expansions=EXPANSIONS)
    ranking = rank(index, parsed, limit=20)
    terms = split_unknown_runs(index, parsed.terms)
    _, weights = stage1_scores(index, terms)
    phrase = parsed.phrase or parsed.text
    at = {int(i): p for p, i in enumerate(index.ids.tolist())}
    expected = [
        rerank_one(index.titles[at[i]], index.summaries[at[i]], terms, phrase, weights)[1]
        for i in ranking.ids
    ]
    assert list(ranking.matched) == expected
    assert any(expected)


def _scores(n: int, nonzero: int, seed: int, ties: bool) -> NDArray[Any]:
    rng = np.random.default_rng(seed)
    out = np.zeros(n)
    values = rng.integers(1, 4, nonzero) / 4 if ties else rng.random(nonzero) + 0.01
    out[rng.choice(n, nonzero, replace=False)] = values
    return out


@pytest.mark.parametrize(
    ("n", "nonzero", "k", "ties"),
    [
        (100_000, 60_000, 100, False),
        (100_000, 1_000, 100, False),
        (100_000, 50, 100, False),
        (100_000, 0, 100, False),
        (100_000, 30_000, 100, True),
        (10_000, 5_000, 100, False),
        (50_000, 20_000, 10, False),
    ],
)
def test_top_candidates_hold_the_k_best(n: int, nonzero: int, k: int, ties: bool) -> None:
    scores = _scores(n, nonzero, seed=n + nonzero, ties=ties)
    got = top_candidates(scores, k)
    assert len(got) == min(k, nonzero)
    assert np.all(scores[got] > 0)
    # The k-th best score bounds what was chosen; ties may pick either paper.
    best = np.sort(scores)[::-1][: min(k, nonzero)]
    assert sorted(scores[got].tolist(), reverse=True) == best.tolist()


def _reference_field(texts: list[str]) -> dict[int, list[int]]:
    """gram -> papers, one text at a time (no chunks, no counting sort)."""
    from paperbot.core.search import char_grams, word_grams

    postings: dict[int, set[int]] = {}
    for i, text in enumerate(texts):
        keys = np.concatenate([char_grams([text])[0], word_grams([text])[0]])
        for key in keys.tolist():
            postings.setdefault(key, set()).add(i)
    return {k: sorted(v) for k, v in postings.items()}


@pytest.mark.parametrize(
    ("texts", "chunk"),
    [
        (["speculative decoding", "数据去重 和 指纹", "", "!!!", "qlora 的 lora"], 2),
        (["的的的", "的模型", "的数据", "模型的"], 1),
        ([f"paper {i} 数据{'去重' if i % 3 else '混合'}" for i in range(50)], 7),
        (["x"], 4096),
        (["a", "", "b", ""], 1),
        ([""], 4096),
    ],
)
def test_build_field_matches_a_plain_inverted_index(texts: list[str], chunk: int) -> None:
    from paperbot.core.search import build_field

    field = build_field(texts, chunk=chunk)
    common = set(field.common.tolist())
    expected = {k: v for k, v in _reference_field(texts).items() if k not in common}
    got = {
        int(k): field.docs[field.indptr[i] : field.indptr[i + 1]].tolist()
        for i, k in enumerate(field.keys)
    }
    assert got == expected
    assert list(field.keys) == sorted(field.keys)


@pytest.mark.parametrize(
    ("old_ids", "new_ids", "changed"),
    [
        ([1, 2, 3], [1, 2, 3], set()),
        ([3, 1, 2], [1, 2, 3, 4], {2}),
        ([5], [1, 2], set()),
    ],
)
def test_rebuild_shares_unchanged_texts(
    old_ids: list[int], new_ids: list[int], changed: set[int]
) -> None:
    from paperbot.core.search import build_index_columns

    def columns(ids: list[int], edit: set[int]) -> dict[str, object]:
        return {
            "ids": ids,
            "titles": [f"Title {i}{' v2' if i in edit else ''}" for i in ids],
            "venues": ["ICLR"] * len(ids),
            "years": [2026] * len(ids),
            "summaries": [f"摘要 {i}{' 新' if i in edit else ''}" for i in ids],
        }

    old = build_index_columns(**columns(old_ids, set()))  # type: ignore[arg-type]
    fresh = build_index_columns(**columns(new_ids, changed))  # type: ignore[arg-type]
    new = build_index_columns(**columns(new_ids, changed), previous=old)  # type: ignore[arg-type]
    assert new.titles == fresh.titles
    assert new.summaries == fresh.summaries
    old_at = {pid: i for i, pid in enumerate(old.ids.tolist())}
    for i, pid in enumerate(new_ids):
        shared = pid in old_at and pid not in changed
        assert (new.titles[i] is old.titles[old_at[pid]]) == shared if pid in old_at else True
        assert (new.summaries[i] is old.summaries[old_at[pid]]) == shared if pid in old_at else True


def test_terms_sharing_an_alternative_score_as_each_alone() -> None:
    """Stage 1 scores an alternative two terms share once (`term_scores`'
    `seen`): the sum is the same as each term scored on its own."""
    index = real_index()
    tables = shipped_tables()
    terms = parse_query(
        "权重衰减和批大小",
        venues=VENUES,
        expansions=tables.expansions,
        translations=tables.translations,
        synonyms=tables.synonyms,
    ).terms
    alternatives = [alt for term in terms for alt in term.alternatives]
    assert len(alternatives) > len(set(alternatives))  # the case under test
    got, weights = stage1_scores(index, terms)
    alone = [term_scores(index, t) for t in terms]
    assert weights == [
        term_weight(t, s.weight, s.alt_weights) for t, s in zip(terms, alone, strict=True)
    ]
    expected = sum(w * s.scores for w, s in zip(weights, alone, strict=True)) / sum(weights)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
