"""A worker's large result comes back through a mapped file: the same
values, the file gone once mapped; a small one crosses the pipe as is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paperbot.services import worker_transfer
from paperbot.services.worker_transfer import Spilled, discard, receive, run_and_spill


def result() -> dict[str, Any]:
    return {
        "ids": np.arange(1000, dtype=np.int64),
        "scores": np.linspace(0.0, 1.0, 500),
        "texts": ("一", "two"),
        "empty": np.zeros(0, dtype=np.int32),
    }


@pytest.mark.parametrize(
    ("limit", "spilled"),
    [(1, True), (10_000, True), (1 << 30, False)],
)
def test_a_result_comes_back_equal_spilled_or_not(
    limit: int, spilled: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker_transfer, "OUT_OF_BAND_BYTES", limit)
    path = str(tmp_path / "result")
    sent = run_and_spill(result, path)
    assert isinstance(sent, Spilled) is spilled
    assert Path(path).exists() is spilled
    got: dict[str, Any] = receive(sent)
    discard(path)
    assert not Path(path).exists()
    expected = result()
    assert isinstance(got, dict)
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(got[key], value)
            assert got[key].dtype == value.dtype
        else:
            assert got[key] == value


def test_received_arrays_can_be_written_without_touching_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker_transfer, "OUT_OF_BAND_BYTES", 1)
    path = tmp_path / "result"
    got: dict[str, Any] = receive(run_and_spill(result, str(path)))
    assert isinstance(got, dict)
    before = path.read_bytes()
    got["ids"][0] = 99  # copy-on-write: the caller owns its arrays
    assert path.read_bytes() == before
