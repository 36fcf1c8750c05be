"""The index build's first pass read once for its second: a chunk's words
read off its code points (`chunk_words`, `chunk_word_keys`) and its runs
kept between the passes (`ChunkRuns`) give what the per-text functions and
the chunks themselves give."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from paperbot.core.search import (
    ChunkRuns,
    PackedTexts,
    build_field,
    char_grams,
    chunk_word_keys,
    chunk_words,
    cjk_bigrams,
    common_cjk_chars,
    joined_codes,
    pack_texts,
    sampled_cjk_doc_counts,
    term_grams,
    text_codes,
    word_grams,
    word_key,
)
from paperbot.core.text import is_cjk_char, latin_words, normalize

TEXTS = [
    "",
    "lora",
    "低秩适配 lora 微调 lora",
    "café naïve résumé 2024",
    "x",
    "multi-agent rl, q-learning: 3d models",
    "\n",
    "emoji 😀 mixed 中文mixed",
    "ends with word",
]


@pytest.mark.parametrize(
    "texts",
    [[], [""], ["", ""], TEXTS, TEXTS[::-1], [t + " " for t in TEXTS], ["a\nb", "c"]],
)
def test_chunk_words_are_each_texts_latin_words_in_order(texts: list[str]) -> None:
    words, docs = chunk_words(text_codes(texts))
    expected = [(w, i) for i, text in enumerate(texts) for w in latin_words(text)]
    assert list(zip(words, docs.tolist(), strict=True)) == expected


@pytest.mark.parametrize(
    ("first", "count"), [(0, 0), (0, 1), (0, len(TEXTS)), (2, 3), (7, 100), (len(TEXTS), 1)]
)
def test_packed_texts_joined_by_nul_read_as_the_texts_do(first: int, count: int) -> None:
    packed = PackedTexts(pack_texts(TEXTS))
    part = TEXTS[first : first + count]
    assert packed.joined(first, count) == "\0".join(part)
    # Grams and words read off the joined codes: those of the texts.
    ours, theirs = joined_codes(packed.joined(first, count)), text_codes(part)
    (keys, docs), (their_keys, their_docs) = char_grams((), ours), char_grams(part)
    assert keys.tolist() == their_keys.tolist()
    assert docs.tolist() == their_docs.tolist()
    assert chunk_words(ours)[0] == chunk_words(theirs)[0]
    assert chunk_words(ours)[1].tolist() == chunk_words(theirs)[1].tolist()


@pytest.mark.parametrize(
    ("texts", "pairs"),
    [
        ([], []),
        (["lora"], []),
        (["低秩适配 lora 微调"], [("低秩", 0), ("秩适", 0), ("适配", 0), ("微调", 0)]),
        (["中", "文"], []),  # no bigram across two texts
        (["x 中文mixed", "", "预训练"], [("中文", 0), ("预训", 2), ("训练", 2)]),
    ],
)
def test_cjk_bigrams_are_char_grams_bigrams(texts: list[str], pairs: list[tuple[str, int]]) -> None:
    keys, docs = cjk_bigrams(texts)
    assert keys.tolist() == [int(cjk_bigrams([pair])[0][0]) for pair, _ in pairs]
    assert docs.tolist() == [text for _, text in pairs]
    # `char_grams` gives these and the grams of the texts with every CJK
    # pair broken apart (their unigrams and Latin trigrams), nothing else.
    broken = ["".join(c + " " if is_cjk_char(ord(c)) else c for c in t) for t in texts]
    pieces = [*zip(keys.tolist(), docs.tolist(), strict=True), *_grams(char_grams(broken))]
    assert sorted(_grams(char_grams(texts))) == sorted(pieces)


def _grams(found: tuple[NDArray[Any], NDArray[Any]]) -> list[tuple[int, int]]:
    return list(zip(found[0].tolist(), found[1].tolist(), strict=True))


@pytest.mark.parametrize(
    ("words", "cached"),
    [
        ([], {}),
        (["lora", "models", "lora"], {}),
        (["models", "studies"], {"models": word_key("models")}),
        (["optimisation", "optimization", "x"], {"x": word_key("x")}),
    ],
)
def test_chunk_word_keys_are_word_keys_kept_in_the_cache(
    words: list[str], cached: dict[str, int]
) -> None:
    cache = dict(cached)
    keys = chunk_word_keys(words, cache)
    assert keys.dtype == np.int64
    assert keys.tolist() == [word_key(w) for w in words]
    assert cache == {w: word_key(w) for w in [*words, *cached]}


def _chunk(seed: int, size: int) -> tuple[NDArray[np.int64], NDArray[Any], NDArray[Any]]:
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 4, size=size)
    grams = np.cumsum(rng.integers(1, 1 << 40, size=size)).astype(np.int64)
    papers = rng.integers(0, 1000, size=int(counts.sum()))
    return grams, counts, papers


@pytest.mark.parametrize(
    ("chunk", "batch", "sizes", "batches"),
    [
        (1024, 1 << 20, [], 0),  # nothing added
        (1024, 1 << 20, [0, 3, 5], 1),  # one batch, an empty chunk among them
        (1024, 1, [1, 2, 3, 4], 4),  # a batch per chunk
        (1024, 100, [7, 1, 9], 2),  # 7 grams pass 100 bytes, 1 + 9 too
        (1 << 16, 1, [2, 5], 2),  # positions past 2 bytes
    ],
)
def test_chunk_runs_replay_what_was_added(
    chunk: int, batch: int, sizes: list[int], batches: int
) -> None:
    parked: list[NDArray[np.uint8]] = []

    class Park:
        def __init__(self, data: NDArray[np.uint8]) -> None:
            parked.append(data)
            self._data = data.copy()

        def take(self) -> NDArray[np.uint8]:
            return self._data

    runs = ChunkRuns(chunk, Park, batch=batch)
    added = [(i * chunk, *_chunk(i, size)) for i, size in enumerate(sizes)]
    for start, grams, counts, papers in added:
        if chunk > 1 << 16:
            papers = papers + (1 << 16)
        runs.add(start, grams, counts, papers)
    replayed = list(runs.replay())
    assert len(replayed) == len(added)
    assert len(parked) == batches
    for (start, grams, counts, papers), (r_start, r_grams, r_counts, r_papers) in zip(
        added, replayed, strict=True
    ):
        assert r_start == start
        assert r_grams.tolist() == grams.tolist()
        assert r_counts.tolist() == counts.tolist()
        expected = papers + (1 << 16) if chunk > 1 << 16 else papers
        assert r_papers.tolist() == expected.tolist()


def _reference_field(texts: list[str]) -> dict[str, list[int]]:
    """The postings worked out text by text: each text's distinct grams
    (common characters' unigrams dropped), grouped by gram."""
    common = {term_grams(chr(cp))[0][0] for cp in common_cjk_chars(texts).tolist()}
    postings: dict[int, list[int]] = {}
    for i, text in enumerate(texts):
        grams = {*char_grams([text])[0].tolist(), *word_grams([text])[0].tolist()}
        for gram in sorted(grams - common):
            postings.setdefault(gram, []).append(i)
    keys = sorted(postings)
    indptr = np.cumsum([0, *(len(postings[k]) for k in keys)]).tolist()
    return {"keys": keys, "indptr": indptr, "docs": [d for k in keys for d in postings[k]]}


@pytest.mark.parametrize("chunk", [1, 2, 3, 1024])
@pytest.mark.parametrize("copies", [1, 40])
def test_a_field_built_in_chunks_equals_one_worked_out_text_by_text(
    chunk: int, copies: int
) -> None:
    # 模 and 型 in more than a quarter of the texts: their unigrams dropped.
    texts = [normalize(t) for t in [*TEXTS, "大模型", "模型压缩", "模型", "小模型"] * copies]
    assert common_cjk_chars(texts).tolist() == [ord("型"), ord("模")]
    field = build_field(texts, chunk=chunk)
    ours = {
        "keys": field.keys.tolist(),
        "indptr": field.indptr.tolist(),
        "docs": field.docs.tolist(),
    }
    assert ours == _reference_field(texts)


SAMPLED = ["模型", "", "低秩模型", "数据", "模", "型号", "数据模型", "x"]


@pytest.mark.parametrize(
    ("step", "first", "batch"),
    [(1, 0, 4096), (4, 0, 4096), (4, 1, 2), (3, 2, 1), (4, 7, 1), (4, 9, 3), (2, 0, 100)],
)
@pytest.mark.parametrize("packed", [False, True])
def test_sampled_counts_count_the_texts_at_every_step(
    step: int, first: int, batch: int, packed: bool
) -> None:
    texts = PackedTexts(pack_texts(SAMPLED)) if packed else SAMPLED
    df = sampled_cjk_doc_counts(texts, step, first, batch)
    expected: dict[int, int] = {}
    for text in SAMPLED[first::step]:
        for char in set(text) - {"x"}:
            expected[ord(char)] = expected.get(ord(char), 0) + 1
    assert {int(cp): int(df[cp]) for cp in np.flatnonzero(df)} == expected
