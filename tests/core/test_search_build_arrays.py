"""A load's index built a named array at a time (`iter_index_arrays`): the
arrays `build_index_arrays` gives, each once, and none kept by the build
once its writer lets it go (the finished arrays never pile up)."""

from __future__ import annotations

import weakref

import numpy as np
import pytest

from paperbot.core.search import build_index_arrays, iter_index_arrays
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
def test_the_arrays_are_build_index_arrays_each_once(count: int) -> None:
    expected = build_index_arrays(**_columns(count))  # type: ignore[arg-type]
    seen: dict[str, np.ndarray] = {}
    for name, array in iter_index_arrays(**_columns(count)):  # type: ignore[arg-type]
        assert name not in seen, name
        seen[name] = array
    assert seen.keys() == expected.keys()
    for name, array in expected.items():
        assert seen[name].dtype == array.dtype, name
        assert np.array_equal(seen[name], array), name


def test_each_array_is_let_go_once_its_writer_has_it() -> None:
    released: list[int] = []
    refs: list[tuple[str, weakref.ref[np.ndarray]]] = []
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
