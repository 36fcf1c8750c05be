"""The index build shares word keys between chunks and its two passes, and
takes titles and summaries already in normal form: the same index as
without, and the same arrays when built straight into them (a load's)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from paperbot.core.search import (
    PackedTexts,
    build_field,
    build_index_columns,
    iter_index_arrays,
    pack_texts,
    title_acronyms,
    to_arrays,
    word_grams,
)
from paperbot.core.text import normalize

TITLES = [
    "Direct Preference Optimization: Your Language Model Is Secretly a Reward Model",
    "Low-Rank Adaptation of Large Language Models",
    "QLoRA: Efficient Finetuning of Quantized LLMs",
    "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks",
    "scaling laws",
]
SUMMARIES = [
    "用偏好数据直接优化策略。",
    "低秩适配 LoRA 微调。",
    "",
    "检索增强生成 RAG。",
    "缩放定律 models",
]


@pytest.mark.parametrize("chunk", [1, 2, 1024])
def test_chunked_fields_equal_one_chunk(chunk: int) -> None:
    texts = [normalize(t) for t in TITLES + SUMMARIES]
    ours, whole = build_field(texts, chunk=chunk), build_field(texts, chunk=len(texts))
    for name in ("keys", "indptr", "docs", "common"):
        assert np.array_equal(getattr(ours, name), getattr(whole, name)), name


def test_a_shared_word_cache_gives_the_same_keys() -> None:
    texts = [normalize(t) for t in TITLES]
    cache: dict[str, int] = {}
    for start in range(len(texts)):
        keys, docs = word_grams(texts[start : start + 1], cache)
        alone, alone_docs = word_grams(texts[start : start + 1])
        assert sorted(keys.tolist()) == sorted(alone.tolist())
        assert docs.tolist() == alone_docs.tolist()


TITLE_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*|[^\sA-Za-z0-9]+")


def run_acronyms(run: list[str]) -> list[str]:
    out: list[str] = []
    if 2 <= len(run) <= 6:
        out.append("".join(w[0] for w in run).casefold())
    parts = [p for w in run for p in w.split("-") if p]
    if len(parts) > len(run) and 3 <= len(parts) <= 6:
        out.append("".join(p[0] for p in parts).casefold())
    return out


def every_run_acronyms(title: str) -> list[str]:
    """`title_acronyms` as written before it skipped runs that give nothing:
    every run of capitalised words is looked at."""
    found: list[str] = []
    run: list[str] = []
    for word in [*TITLE_WORD.findall(title), ""]:
        if word[:1].isupper():
            run.append(word)
            continue
        found.extend(run_acronyms(run))
        run = []
    return list(dict.fromkeys(found))


@pytest.mark.parametrize(
    "title",
    [
        *TITLES,
        "Mixture-of-Experts",
        "A-B",
        "Pre-LN: X Y-Z of W",
        "one Word only",
        "",
        "Self-Rewarding Language Models",
    ],
)
def test_title_acronyms_skip_only_runs_that_give_none(title: str) -> None:
    assert title_acronyms(title) == every_run_acronyms(title)


def test_title_acronyms_find_the_usual_ones() -> None:
    assert "dpo" in title_acronyms(TITLES[0])
    assert "lra" in title_acronyms(TITLES[1])
    assert "rag" in title_acronyms(TITLES[3])


def test_normal_titles_and_summaries_build_the_same_index() -> None:
    def build(normal: bool) -> object:
        return build_index_columns(
            ids=list(range(1, len(TITLES) + 1)),
            titles=TITLES,
            venues=["ICML"] * len(TITLES),
            years=[2025] * len(TITLES),
            summaries=[normalize(s) for s in SUMMARIES] if normal else list(SUMMARIES),
            normal_titles=[normalize(t) for t in TITLES] if normal else None,
        )

    ours, theirs = build(True), build(False)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("count", [0, 1, len(TITLES)])
def test_arrays_built_from_normal_forms_equal_the_stored_index(count: int) -> None:
    titles, summaries = TITLES[:count], SUMMARIES[:count]
    ids = list(range(1, count + 1))
    venues = ["NeurIPS", "ICML", "ICML", "ICLR", "ACL"][:count]
    years = list(range(2020, 2020 + count))
    expected = to_arrays(
        build_index_columns(
            ids=ids, titles=titles, venues=venues, years=years, summaries=list(summaries)
        )
    )
    given = ([*titles], [normalize(t) for t in titles], [normalize(s) for s in summaries])
    ours = dict(
        iter_index_arrays(
            ids=ids,
            titles=given[0],
            venues=venues,
            years=years,
            summaries=given[2],
            normal_titles=given[1],
        )
    )
    assert ours.keys() == expected.keys()
    for name, array in expected.items():
        assert ours[name].dtype == array.dtype, name
        assert np.array_equal(ours[name], array), name
    assert given == ([], [], [])  # the texts were consumed


@pytest.mark.parametrize(("chunk", "consume"), [(1, False), (2, True), (4096, True)])
def test_packed_texts_are_the_texts_joined_by_nul(chunk: int, consume: bool) -> None:
    texts = [normalize(s) for s in SUMMARIES]
    expected = b"1" + "\x00".join(texts).encode("utf-8")
    packed = pack_texts(texts, chunk, consume=consume)
    assert packed.tobytes() == expected
    assert texts == ([""] * len(SUMMARIES) if consume else [normalize(s) for s in SUMMARIES])


def test_a_text_holding_nul_is_refused() -> None:
    with pytest.raises(ValueError, match="NUL"):
        pack_texts(["a", "b\x00c"], 1)


@pytest.mark.parametrize("texts", [[], [""], ["a"], [normalize(s) for s in SUMMARIES]])
def test_packed_texts_read_back_as_the_texts(texts: list[str]) -> None:
    packed = PackedTexts(pack_texts(texts, 2))
    assert len(packed) == len(texts)
    assert list(packed) == texts
    for part in (slice(1, 3), slice(None, None, 2), slice(3, 1), slice(-2, None)):
        assert packed[part] == texts[part], part
    if texts:
        assert packed[-1] == texts[-1]
