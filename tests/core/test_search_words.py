"""Query words that say little (closed-class English words, Chinese
particles) and bilingual concept translations counting above topic aliases."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from paperbot.core.search import (
    ALTERNATIVE,
    LONG_QUERY_ALTERNATIVE,
    LONG_QUERY_TRANSLATION,
    TRANSLATION,
    SearchIndex,
    Term,
    bilingual_table,
    concept_translations,
    parse_query,
    rank,
    rerank_one,
    title_length_norm,
)
from paperbot.core.text import normalize
from tests.support.search import index_of

CONCEPTS = [(("zeroth-order",), ("零阶优化",)), (("instability",), ("训练不稳定", "失稳"))]
# A topic whose aliases attach to each other: 优化器 is broader than zeroth-order.
TOPICS = {"zeroth-order": ("optimizers", "优化器"), "optimizers": ("zeroth-order", "优化器")}


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        (
            "why do transformers fail on inputs longer than they were trained on",
            ("transformers", "fail", "inputs", "longer", "trained"),
        ),
        (
            "what happens when you train for several epochs on the same text",
            ("happens", "train", "epochs", "text"),
        ),
        ("less is more", ("less", "more")),  # nothing else: the words stay
        ("如何在预训练中去除重复文档", ("预训练中去除重复文档",)),  # no alias: one run
    ],
)
def test_function_words_drop_out(query: str, terms: tuple[str, ...]) -> None:
    assert tuple(t.text for t in parse_query(query).terms) == terms


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        # Cut around the alias 预训练, the pieces lose their particles:
        # 在 alone is dropped, 中去除 becomes 去除.
        ("在预训练中去除", ("预训练", "去除")),
        ("预训练的方法", ("预训练", "方法")),
        ("中文预训练", ("中文", "预训练")),  # two characters stay as they are
    ],
)
def test_cjk_particles_are_cut_off_pieces(query: str, terms: tuple[str, ...]) -> None:
    parsed = parse_query(query, expansions={"预训练": ("pretraining",)})
    assert tuple(t.text for t in parsed.terms) == terms


@pytest.mark.parametrize(
    ("key", "translations"),
    [
        ("zeroth-order", frozenset({"零阶优化"})),
        ("零阶优化", frozenset({"zeroth-order"})),
        ("失稳", frozenset({"instability"})),
        ("optimizers", None),  # a topic alias only: no translation
    ],
)
def test_concept_translations(key: str, translations: frozenset[str] | None) -> None:
    assert concept_translations(CONCEPTS).get(key) == translations


@pytest.mark.parametrize(
    ("query", "alt", "weight"),
    [
        ("zeroth-order", "零阶优化", TRANSLATION),
        ("zeroth-order", "优化器", ALTERNATIVE),
        ("zeroth-order methods for tuning huge networks", "零阶优化", LONG_QUERY_TRANSLATION),
        ("zeroth-order methods for tuning huge networks", "优化器", LONG_QUERY_ALTERNATIVE),
    ],
)
def test_translations_weigh_more_than_topic_aliases(query: str, alt: str, weight: float) -> None:
    parsed = parse_query(
        query,
        expansions=bilingual_table(TOPICS, CONCEPTS),
        translations=concept_translations(CONCEPTS),
    )
    term = parsed.terms[0]
    assert term.text == "zeroth-order"
    # Translations come first, so the alias cap never drops them.
    assert term.alternatives[0] == "零阶优化"
    assert term.weight_of(alt) == weight
    assert term.translation_weight > term.alt_weight


def make_index(papers: Sequence[tuple[str, str]]) -> SearchIndex:
    return index_of(papers)


@pytest.mark.parametrize(
    ("translations", "first"),
    [
        # The summary that says 零阶优化 (the same idea) ranks above the one
        # that says 优化器 (the broader topic) ...
        (True, 1),
        # ... which, without translations, score the same.
        (False, None),
    ],
)
def test_a_translated_match_outranks_a_topic_alias(translations: bool, first: int | None) -> None:
    index = make_index(
        [
            ("Fine-Tuning with Forward Passes Only", "用零阶优化微调，无需反向传播。"),
            ("A Survey of Adaptive Methods", "综述常见的优化器。"),
            ("Speculative Decoding", "推测解码加速推理。"),
        ]
    )
    parsed = parse_query(
        "zeroth-order",
        expansions=bilingual_table(TOPICS, CONCEPTS),
        translations=concept_translations(CONCEPTS) if translations else None,
    )
    ranking = rank(index, parsed)
    assert set(ranking.ids) == {1, 2}
    scores = dict(zip(ranking.ids, ranking.scores, strict=True))
    if first is None:
        assert scores[1] == scores[2]
    else:
        assert ranking.ids[0] == first
        assert scores[1] > scores[2]


def test_term_without_translations_uses_the_alias_weight() -> None:
    term = Term("x", ("y",))
    assert term.weight_of("y") == ALTERNATIVE


@pytest.mark.parametrize(
    ("word", "title", "strength"),
    [
        ("lora", "QLoRA: Efficient Finetuning", 0.9),  # most of the word: a name inside it
        ("training", "Pretraining at Scale", 0.9),
        ("scissorhands", "Scissor Hands for KV Caches", 0.9),  # spans two words
        ("norm", "LayerNorm Placement Revisited", 0.9 * 4 / 9),  # a small part of "layernorm"
        ("lora", "LoRAMoE Experts", 0.9 * 4 / 7),
        # An English word inside another English word is no piece of it.
        ("able", "Language Models Are Latent Variable Models", 0.0),
        ("back", "From Backward Spreading to Forward Replay", 0.0),
        ("former", "Transformer Circuits", 0.0),
        ("reference", "Direct Preference Optimization", 0.0),
    ],
)
def test_a_small_piece_of_a_longer_word_is_weak_evidence(
    word: str, title: str, strength: float
) -> None:
    score, _ = rerank_one(normalize(title), "", [Term(word)], word)
    assert score == pytest.approx(strength + (0.05 if strength >= 0.5 else 0.0))


def test_an_exact_rare_summary_word_beats_a_small_title_piece() -> None:
    piece, _ = rerank_one(normalize("LayerNorm Placement"), "", [Term("norm")], "norm", [3.5])
    exact, _ = rerank_one("unrelated title", "we norm the inputs", [Term("norm")], "norm", [3.5])
    assert 0 < piece < exact


@pytest.mark.parametrize(
    ("length", "norm"),
    [(30, 1.0), (80, 1.0), (120, 2.2 / (1 + 1.2 * (0.25 + 0.75 * 1.5))), (160, 2.2 / 3.1)],
)
def test_title_length_norm_only_lowers(length: int, norm: float) -> None:
    assert title_length_norm(length) == pytest.approx(norm)


@pytest.mark.parametrize(
    ("short", "long", "first"),
    [
        # The same word, once in a short title and once in a long one that
        # says many other things: the short title ranks first either way.
        ("Grokking in Transformers", "Grokking " + "and Other Phenomena " * 8, 1),
        ("Grokking " + "and Other Phenomena " * 8, "Grokking in Transformers", 2),
    ],
)
def test_a_match_in_a_long_title_counts_less(short: str, long: str, first: int) -> None:
    index = make_index([(short, "无关。"), (long, "无关。"), ("Unrelated Paper", "无关。")])
    assert rank(index, parse_query("grokking")).ids[0] == first
