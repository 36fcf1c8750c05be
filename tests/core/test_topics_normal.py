"""A topic corpus built from texts already in normal form (the load shares
them with the search index) equals one built from the raw texts, postings
and all; vectorised CJK and word postings equal plain inverted indexes."""

from __future__ import annotations

import numpy as np
import pytest

from paperbot.core.text import normalize
from paperbot.core.topics import build_corpus
from paperbot.core.topics._corpus import Postings, _char_postings
from paperbot.core.topics._keys import LATIN_LAST, Documents, document
from tests.support.topics import assert_same_corpus

PAPERS = [
    (3, "Scaling Laws for Neural Language Models", "我们研究缩放定律，數據混合与去重。"),
    (5, "QLoRA: Efficient Finetuning", "ＱＬｏＲＡ 在单卡上微调 65B 模型；低秩适配。"),
    (8, "Mixture-of-Experts Routing", "MoE 路由，专家负载均衡，路由器 z-loss。"),
    (9, "", ""),
    (12, "数据去重 Deduplication", "重复数据会损害模型 performance，去重有帮助。"),
]


@pytest.mark.parametrize("count", [0, 1, 2, len(PAPERS)])
def test_normal_texts_build_the_same_corpus(count: int) -> None:
    papers = PAPERS[:count]
    normal = [(i, normalize(t), normalize(s)) for i, t, s in papers]
    assert_same_corpus(build_corpus(normal, normal=True), build_corpus(papers))


@pytest.mark.parametrize(
    ("char", "positions"),
    [("据", [0, 4]), ("路", [2]), ("适", [1]), ("重", [0, 4])],
)
def test_char_postings_list_each_paper_once_in_order(char: str, positions: list[int]) -> None:
    corpus = build_corpus(PAPERS)
    assert corpus.summary.char_postings[char].tolist() == positions


DOCS = [" 缩放 定律 scaling ", " ", " 路由 专家 路由 ", " 𠀀 定 ", "", " law 律 𠀀 定律 "]


def plain_char_postings(docs: list[str]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for position, doc in enumerate(docs):
        for char in sorted({c for c in doc if c > LATIN_LAST}):
            found.setdefault(char, []).append(position)
    return dict(sorted(found.items()))


@pytest.mark.parametrize("chunk", [1, 2, 4, 2048])
def test_char_postings_equal_a_plain_inverted_index_at_any_chunk(chunk: int) -> None:
    # Chunks end mid-list, a chunk holds no CJK, a code point above U+FFFF.
    got = _char_postings(DOCS, chunk)
    assert {k: v.tolist() for k, v in got.items()} == plain_char_postings(DOCS)
    assert list(got) == sorted(got)
    assert all(v.dtype == np.int32 for v in got.values())


def test_char_postings_refuse_chunks_too_large_to_pack() -> None:
    with pytest.raises(ValueError, match="2048"):
        _char_postings(DOCS, 2049)


TEXTS = [
    "Scaling Laws for Neural Language Models",
    "",
    "Optimisation studies: models, analyses and classes",
    "数据混合与去重 dedup ＱＬｏＲＡ 65B",
    "The Studies of studies 研究 studies",
    "Re-evaluation of non-convergence in  pre-training\n",
]


@pytest.mark.parametrize(
    ("split", "normal", "order"),
    [(1, False, 1), (2, True, 1), (2, True, -1), (3, False, -1), (5, False, 1), (5, True, -1)],
)
def test_documents_in_batches_equal_each_text_keyed_alone(
    split: int, normal: bool, order: int
) -> None:
    # A later batch repeats words an earlier one folded (`studies`); an
    # empty text first, last and inside a batch, or alone.
    texts = [normalize(t) for t in TEXTS[::order]] if normal else TEXTS[::order]
    keys = Documents()
    got = [
        doc
        for start in range(0, len(texts), split)
        for doc in keys.of(texts[start : start + split], normal)
    ]
    assert got == [document(t, normal) for t in texts]
    assert keys.latin == {w for doc in got for w in doc.split() if w[0] <= LATIN_LAST}


def test_documents_of_raw_texts_leave_the_given_list_as_it_was() -> None:
    texts = list(TEXTS)
    Documents().of(texts)
    assert texts == TEXTS


def test_documents_of_texts_not_in_normal_form_are_keyed_one_at_a_time() -> None:
    # A newline would split a batch's joined text in the wrong place.
    texts = ["two\nlines of models", "", "数据\n去重"]
    assert Documents().of(texts, True) == [document(t, True) for t in texts]


def plain_word_postings(docs: list[str]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for position, doc in enumerate(docs):
        for word in {w for w in doc.split() if w[0] <= LATIN_LAST}:
            found.setdefault(word, []).append(position)
    return found


@pytest.mark.parametrize("count", [0, 1, 3, len(PAPERS)])
def test_word_postings_equal_a_plain_inverted_index_keyed_in_first_use_order(count: int) -> None:
    corpus = build_corpus(PAPERS[:count])
    for data in (corpus.title, corpus.summary):
        got = data.word_postings
        assert {k: v.tolist() for k, v in got.items()} == plain_word_postings(list(data.docs))
        assert tuple(got) == data.words
        assert all(v.dtype == np.int32 for v in got.values())


@pytest.mark.parametrize(
    ("key", "expected"),
    [("a", [0, 4]), ("b", []), ("c", [1, 2, 3]), ("z", None)],
)
def test_postings_are_each_keys_slice_of_one_array(key: str, expected: list[int] | None) -> None:
    docs = np.asarray([0, 4, 1, 2, 3], dtype=np.int32)
    postings = Postings(["a", "b", "c"], np.asarray([0, 2, 2, 5], dtype=np.int64), docs)
    got = postings.get(key)
    assert (None if got is None else got.tolist()) == expected
    assert (key in postings) == (expected is not None)
    assert list(postings) == ["a", "b", "c"]
    assert len(postings) == 3


@pytest.mark.parametrize("indptr", [[0, 2, 5], [0, 2, 2, 4], [0, 2, 2, 6]])
def test_postings_refuse_bounds_that_disagree_with_their_keys(indptr: list[int]) -> None:
    with pytest.raises(ValueError, match="disagree"):
        Postings(["a", "b", "c"], np.asarray(indptr), np.zeros(5, dtype=np.int32))
