"""Ranking on the real shipped corpus: each kind of query finds its paper."""

from __future__ import annotations

import pytest

from paperbot.bench.baselines import BaselineCorpus, baseline_corpus, baseline_rank
from paperbot.core.search import (
    ParsedQuery,
    Term,
    build_index,
    from_arrays,
    parse_query,
    rank,
    suggest_titles,
    title_acronyms,
    to_arrays,
)
from tests.support.search import real_index, real_papers, title_of

VENUES = ("ICLR", "ICML", "NeurIPS")


def top_titles(query: str, k: int = 3, **options: object) -> list[str]:
    parsed = parse_query(query, venues=VENUES, **options)  # type: ignore[arg-type]
    ranking = rank(real_index(), parsed, limit=k)
    return [title_of(i) for i in ranking.ids]


def assert_in_top(query: str, expected: str, k: int = 3) -> None:
    titles = top_titles(query, k)
    assert any(expected in t for t in titles), f"{query!r}: {expected!r} not in {titles}"


@pytest.mark.parametrize(
    ("query", "expected", "k"),
    [
        # English words anywhere, terms only in summaries, acronyms, fragments
        ("speculative decoding", "Speculative Decoding", 2),
        ("GaLore", "Breaking the Frozen Subspace", 1),
        ("GRPO", "Compute as Teacher", 1),
        ("LayerNorm", "The Curse of Depth", 3),
        ("QLoRA", "QLoRA: Efficient Finetuning", 1),
        ("DPO", "Direct Preference Optimization: Your Language Model", 1),
        ("secretly a reward model", "Direct Preference Optimization", 1),
        ("Big Little Decoder", "Speculative Decoding with Big Little Decoder", 1),
        # inflections and spelling variants
        ("language model scaling law", "Scaling", 3),
        ("optimisation", "Optimization", 1),
        # typos, run-together and split words
        ("shampo optimizer", "Shampoo", 1),
        ("toolformr", "Toolformer", 1),
        ("speculativ decodng", "Speculative Decoding", 2),
        ("refined web", "RefinedWeb", 1),
        ("refinedweb", "RefinedWeb", 1),
        ("scissor hands", "Scissorhands", 1),
        ("scisorhands", "Scissorhands", 1),
        # Chinese: two-character words, single characters, partial coverage
        ("去重", "RefinedWeb", 2),
        ("去重", "D4: Improving LLM Pretraining", 2),
        ("指纹", "Scalable Fingerprinting", 1),
        ("熵", "Provable Maximum Entropy", 4),
        ("数据去重", "D4: Improving LLM Pretraining", 2),
        ("权重衰减和批大小", "Power Lines", 1),
        # mixed
        ("RoPE 单头", "Deconstructing Positional Information", 1),
        ("Pre-LN 方差", "The Curse of Depth", 1),
        # normalisation
        ("ＱＬｏＲＡ", "QLoRA", 1),
        ("數據混合", "DoReMi", 4),
        ("ＲｏＰＥ　單頭", "Deconstructing Positional Information", 1),
        # venue/year in the query
        ("NeurIPS 2023 QLoRA", "QLoRA", 1),
        ("ICLR 2026 Shampoo", "Shampoo", 1),
    ],
)
def test_finds_the_paper(query: str, expected: str, k: int) -> None:
    assert_in_top(query, expected, k)


def test_title_match_ranks_above_summary_only() -> None:
    # "Toolformer" is in one title; other papers only mention tools in summaries.
    titles = top_titles("toolformer", 5)
    assert titles[0].startswith("Toolformer")
    scores = rank(real_index(), parse_query("Shampoo"), limit=5).scores
    assert scores == tuple(sorted(scores, reverse=True))


def test_covering_all_terms_beats_covering_some() -> None:
    titles = top_titles("Pre-LN 方差", 2)
    assert titles[0].startswith("The Curse of Depth")  # pre, ln and 方差
    ranking = rank(real_index(), parse_query("shampo optimizer"), limit=3)
    assert title_of(ranking.ids[0]).startswith("Understanding and Improving Shampoo")


def test_exact_beats_fuzzy() -> None:
    exact = rank(real_index(), parse_query("toolformer"), limit=1)
    fuzzy = rank(real_index(), parse_query("toolformr"), limit=1)
    assert exact.ids == fuzzy.ids
    assert exact.scores[0] > fuzzy.scores[0]


def test_ties_break_by_id_and_results_are_deterministic() -> None:
    first = rank(real_index(), parse_query("熵"))
    again = rank(real_index(), parse_query("熵"))
    assert first == again
    for (s1, i1), (s2, i2) in zip(
        zip(first.scores, first.ids, strict=True),
        zip(first.scores[1:], first.ids[1:], strict=True),
        strict=False,
    ):
        assert s1 > s2 or (s1 == s2 and i1 < i2)


@pytest.mark.parametrize(
    ("query", "venue", "year"),
    [("QLoRA", "NeurIPS", 2023), ("scaling", "ICML", None), ("数据", None, 2025)],
)
def test_filters_hold(query: str, venue: str | None, year: int | None) -> None:
    by_id = {p.id: p for p in real_papers()}
    ranking = rank(real_index(), parse_query(query, venues=VENUES, venue=venue, year=year))
    assert ranking.ids
    for pid in ranking.ids:
        assert venue is None or by_id[pid].venue == venue
        assert year is None or by_id[pid].year == year


def test_filter_without_match_finds_nothing() -> None:
    assert rank(real_index(), parse_query("QLoRA", venue="ICLR")).ids == ()


def test_filter_only_lists_the_selection_in_id_order() -> None:
    ranking = rank(real_index(), parse_query("ICLR 2026", venues=VENUES))
    by_id = {p.id: p for p in real_papers()}
    assert len(ranking.ids) == sum(1 for p in real_papers() if p.venue == "ICLR")
    assert list(ranking.ids) == sorted(ranking.ids)
    assert all(by_id[i].venue == "ICLR" for i in ranking.ids)


@pytest.mark.parametrize(
    "query",
    ["", "   ", "x" * 3000, "🙂🙂🙂", '" OR 1=1 --', "NEAR(a b)", "*", "\u202e\u2067", "xqzvbk"],
)
def test_bad_queries_return_nothing_or_results_but_never_raise(query: str) -> None:
    parsed = parse_query(query, venues=VENUES, max_length=300)
    ranking = rank(real_index(), parsed, limit=10)
    if parsed.problem is not None:
        assert ranking.ids == ()
    assert len(ranking.ids) == len(ranking.scores) == len(ranking.matched)


def test_nonsense_finds_nothing() -> None:
    assert rank(real_index(), parse_query("xqzvbk")).ids == ()


def test_matched_strings_are_reported_for_highlighting() -> None:
    ranking = rank(real_index(), parse_query("数据去重 toolformr"), limit=5)
    everything = {m for matched in ranking.matched for m in matched}
    assert "toolformer" in everything  # the word that the typo matched
    assert "去重" in everything


def test_expansion_crosses_languages() -> None:
    # No summary says 混合专家; the alias lifts the Mixture of Experts paper
    # from a partial (专家) match to the top.
    plain = rank(real_index(), parse_query("混合专家"), limit=3)
    expansions = {"混合专家": ("mixture of experts", "moe")}
    expanded = rank(real_index(), parse_query("混合专家", expansions=expansions), limit=3)
    assert "Mixture of Experts" in title_of(expanded.ids[0])
    moe = expanded.ids[0]
    assert moe not in plain.ids[:1]
    assert expanded.scores[0] > dict(zip(plain.ids, plain.scores, strict=True)).get(moe, 0.0)


def test_an_alias_never_outranks_a_direct_match() -> None:
    parsed = ParsedQuery("x", terms=(Term("toolformer", ("shampoo",)),))
    ranking = rank(real_index(), parsed, limit=2)
    assert title_of(ranking.ids[0]).startswith("Toolformer")
    assert ranking.scores[0] > ranking.scores[1]


@pytest.mark.parametrize(
    ("title", "acronyms"),
    [
        (
            "Direct Preference Optimization: Your Language Model is Secretly a Reward Model",
            ["dpo", "ylm", "rm"],
        ),
        ("QLoRA: Efficient Finetuning of Quantized LLMs", ["ef", "ql"]),
        ("Speculative Decoding with Big Little Decoder", ["sd", "bld"]),
        ("the lowercase title", []),
    ],
)
def test_title_acronyms(title: str, acronyms: list[str]) -> None:
    assert title_acronyms(title) == acronyms


def test_suggestions_for_a_near_miss() -> None:
    parsed = parse_query("Shampo Kullback Leiblr")
    ids = suggest_titles(real_index(), parsed)
    assert ids
    assert title_of(ids[0]).startswith("Understanding and Improving Shampoo")


def test_index_round_trips_through_arrays() -> None:
    index = real_index()
    again = from_arrays({k: v.copy() for k, v in to_arrays(index).items()})
    parsed = parse_query("数据去重 shampo")
    assert rank(again, parsed) == rank(index, parsed)
    assert again.titles == index.titles
    assert again.venues == index.venues


def test_empty_index() -> None:
    index = build_index([])
    assert rank(index, parse_query("anything")).ids == ()
    assert from_arrays(to_arrays(index)).size == 0


def test_baseline_ranks_title_words_above_summary_words() -> None:
    corpus: BaselineCorpus = baseline_corpus(real_papers())
    ids, scores = baseline_rank(corpus, "Toolformer")
    assert title_of(ids[0]).startswith("Toolformer")
    assert scores == sorted(scores, reverse=True)
    assert baseline_rank(corpus, "xqzvbk") == ([], [])
