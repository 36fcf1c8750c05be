"""A load's index built a named array at a time (`iter_index_arrays`): the
stored index's arrays, each once, and none kept by the build once its
writer lets it go (the finished arrays never pile up). That they equal the
stored index's is `test_search_build`'s test."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from paperbot.core.search import (
    PackedTexts,
    build_index_columns,
    iter_index_arrays,
    pack_texts,
    to_arrays,
)
from paperbot.core.text import normalize

TITLES = [
    "Direct Preference Optimization: Your Language Model Is Secretly a Reward Model",
    "Low-Rank Adaptation of Large Language Models",
    "QLoRA: Efficient Finetuning of Quantized LLMs",
    "scaling laws",
]
SUMMARIES = ["直接偏好优化，无需奖励模型。", "低秩适配 LoRA 微调大模型。", "量化 4-bit 微调。", ""]


def _columns(count: int) -> dict[str, list[int] | list[str]]:
    return {
        "ids": list(range(1, count + 1)),
        "titles": TITLES[:count],
        "venues": ["NeurIPS", "ICML", "ICML", "ICLR"][:count],
        "years": list(range(2020, 2020 + count)),
        "summaries": [normalize(s) for s in SUMMARIES[:count]],
        "normal_titles": [normalize(t) for t in TITLES[:count]],
    }


@pytest.mark.parametrize("count", [0, 1, len(TITLES)])
def test_the_arrays_are_the_stored_index_s_each_once(count: int) -> None:
    stored = build_index_columns(
        ids=list(range(1, count + 1)),
        titles=TITLES[:count],
        venues=["NeurIPS"] * count,
        years=[2020] * count,
        summaries=SUMMARIES[:count],
    )
    names = [name for name, _ in iter_index_arrays(**_columns(count))]  # type: ignore[arg-type]
    assert sorted(names) == sorted(to_arrays(stored))


def test_each_array_is_let_go_once_its_writer_has_it() -> None:
    released: list[int] = []
    refs: list[tuple[str, weakref.ref[NDArray[Any]]]] = []
    arrays = iter_index_arrays(
        **_columns(len(TITLES)),  # type: ignore[arg-type]
        between=lambda: released.append(len(refs)),
    )
    for name, array in arrays:
        # Every array written before is gone by the time the next is built.
        assert [n for n, ref in refs if ref() is not None] == [], name
        refs.append((name, weakref.ref(array)))
        del array
    # Freed memory handed back once the strings go, then between each
    # field's passes and after each field.
    assert len(released) == 5
    assert released[0] == [n for n, _ in refs].index("title_keys")


class _Reader:
    """Parked texts read back through `PackedTexts(read=...)`, counting reads."""

    def __init__(self, packed: NDArray[np.uint8]) -> None:
        self._data = packed.tobytes()
        self.reads = 0
        self.texts = PackedTexts(packed, read=self._read)

    def _read(self, start: int, end: int) -> bytes:
        self.reads += 1
        return self._data[start:end]

    def take(self) -> NDArray[np.uint8]:
        return np.frombuffer(self._data, dtype=np.uint8)


def test_parked_texts_read_back_give_the_same_arrays() -> None:
    expected = dict(iter_index_arrays(**_columns(len(TITLES))))  # type: ignore[arg-type]
    parked: list[_Reader] = []

    def park(packed: NDArray[np.uint8]) -> _Reader:
        parked.append(_Reader(packed))
        return parked[-1]

    ours = dict(iter_index_arrays(**_columns(len(TITLES)), park=park))  # type: ignore[arg-type]
    # Titles and summaries read back as texts; then each field's first-pass
    # batch (`ChunkRuns`), taken back whole by its second pass.
    assert [p.reads > 0 for p in parked] == [True, True, False, False]
    assert ours.keys() == expected.keys()
    for name, array in expected.items():
        assert np.array_equal(ours[name], array), name


@pytest.mark.parametrize("texts", [[], [""], ["a", "", "低秩 b"]])
def test_packed_texts_with_a_reader_do_not_keep_the_array(texts: list[str]) -> None:
    packed = pack_texts(texts)
    data = packed.tobytes()
    ref = weakref.ref(packed)
    read_back = PackedTexts(packed, read=lambda start, end: data[start:end])
    del packed
    assert ref() is None
    assert list(read_back) == texts
    assert read_back[::2] == texts[::2]
