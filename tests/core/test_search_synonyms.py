"""A concept's terms in the query's own language are alternatives too (issue
10 part 3): `损失尖峰` also finds the summaries that say 失稳,
after its English aliases, at most `MAX_SYNONYMS` of them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from paperbot.core.search import (
    MAX_ALTERNATIVES,
    MAX_SYNONYMS,
    QueryTables,
    Term,
    concept_synonyms,
    expand_terms,
    parse_query,
    rank,
)
from tests.support.search import real_index, shipped_synonyms, shipped_table, title_of

CONCEPTS = [
    (["loss spike", "training instability"], ["损失尖峰", "失稳", "训练不稳定"]),
    (["instability"], ["失稳", "不稳定"]),
    (["dedup"], ["去重"]),
]


@pytest.mark.parametrize(
    ("term", "synonyms"),
    [
        ("损失尖峰", ("失稳", "训练不稳定")),
        # In two concepts: both concepts' terms, in file order.
        ("失稳", ("损失尖峰", "训练不稳定", "不稳定")),
        ("loss spike", ("training instability",)),
        ("instability", None),  # alone in its language: no synonym
        ("去重", None),
    ],
)
def test_concept_synonyms(term: str, synonyms: tuple[str, ...] | None) -> None:
    assert concept_synonyms(CONCEPTS).get(term) == synonyms


def test_synonyms_follow_the_other_scripts_aliases_up_to_the_cap() -> None:
    expansions = {"损失尖峰": ("loss spike", "training instability")}
    synonyms = {"损失尖峰": ("失稳", "训练不稳定", "损失爆炸", "不收敛")}
    (term,) = expand_terms(["损失尖峰"], expansions, synonyms=synonyms)
    assert term == Term(
        "损失尖峰",
        ("loss spike", "training instability", *synonyms["损失尖峰"][:MAX_SYNONYMS]),
        typos=False,
    )
    assert len(term.alternatives) <= MAX_ALTERNATIVES + MAX_SYNONYMS


def test_a_synonym_already_an_alias_is_not_repeated() -> None:
    expansions = {"损失尖峰": ("loss spike", "失稳")}  # same script: not an alternative
    (term,) = expand_terms(["损失尖峰"], expansions, synonyms={"损失尖峰": ("失稳",)})
    assert term.alternatives == ("loss spike", "失稳")


def test_on_the_shipped_papers_a_chinese_synonym_finds_what_the_query_does_not_say() -> None:
    # *Stable and low-precision training* says 失稳 and 训练稳定性, never 损失尖峰.
    def top5(synonyms: Mapping[str, Sequence[str]] | None) -> list[str]:
        query = parse_query("损失尖峰", expansions=shipped_table(), synonyms=synonyms)
        return [title_of(i) for i in rank(real_index(), query).ids[:5]]

    wanted = "Stable and low-precision training for large-scale vision-language models"
    assert wanted in top5(shipped_synonyms())
    assert wanted not in top5(None)


def test_query_tables_of_a_vocabulary_hold_its_aliases_translations_and_synonyms() -> None:
    tables = QueryTables.of({"moe": ("混合专家",)}, CONCEPTS)
    assert tables.expansions["moe"] == ("混合专家",)
    assert tables.expansions["损失尖峰"] == ("loss spike", "training instability")
    assert tables.translations["损失尖峰"] == {"loss spike", "training instability"}
    assert tables.synonyms == concept_synonyms(CONCEPTS)
    assert QueryTables() == QueryTables({}, {}, {})
