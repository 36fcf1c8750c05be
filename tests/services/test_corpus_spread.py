"""`services.corpus_spread`: files read on both cores give the serial reads
(same entries in order, problems with their lines, fingerprints, title
keys), whoever reads which file, and when the worker fails or dies."""

from __future__ import annotations

import asyncio
import gc
import pickle
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from paperbot.bench.synthetic import BENCH_LIMITS
from paperbot.core.text import TitleKeys, title_key
from paperbot.services import corpus_spread
from paperbot.services.corpus_files import FileRead, file_fingerprint
from paperbot.services.corpus_spread import claim, collector_paused, read_claimed, read_files

HEADER = "📚 预训练¶\n\n🧠 NeurIPS2025 · 9 篇论文解读\n\n"
AREA = "预训练"


# Every test: the code under test makes temporary files.
pytestmark = pytest.mark.usefixtures("private_tmp")


def write_pages(folder: Path) -> list[Path]:
    """Pages of every kind: clean, with problems, bad bytes, not text at
    all, block layout, and one whose fingerprint is already known."""
    folder.mkdir()
    pages: dict[str, bytes] = {
        "a-neurips-2025.txt": (HEADER + "First Paper: 摘要一\nSecond Paper: 摘要二\n").encode(),
        "b-neurips-2025.txt": (
            HEADER + "Good Paper: 摘要\nOther Paper: 摘要\nThird Paper: 摘要\n"
            "no separator here\n%%%: 摘要\n1234567890 A: 摘要\n"
        ).encode(),
        "c-neurips-2025.txt": HEADER.encode() + b"Bad \xff Byte Paper: \xe6\x91\x98\n",
        "d-neurips-2025.txt": b"\x00\x01binary",
        "e-icml-2024.txt": "ICML 2024\n\nBlock Title\n\n段落。\n\n孤立？\n".encode(),
        "f-neurips-2025.txt": (HEADER + "Known Paper: 已知\n").encode(),
        "g-neurips-2025.txt": (HEADER + "First Paper: 重复的论文\n").encode(),
    }
    paths = []
    for name, data in pages.items():
        (folder / name).write_bytes(data)
        paths.append(folder / name)
    return paths


def known_of(paths: list[Path]) -> dict[str, str]:
    if len(paths) < 6:
        return {}
    page = paths[5]
    return {page.name: file_fingerprint(page.read_bytes(), AREA, BENCH_LIMITS)}


async def serial(paths: list[Path]) -> tuple[list[FileRead], dict[str, str]]:
    key = TitleKeys()
    reads = await read_files(paths, AREA, known_of(paths), BENCH_LIMITS, key)
    return reads, dict(key)


def fake_worker(
    monkeypatch: pytest.MonkeyPatch, taken: int, fails: bool = False
) -> list[list[int]]:
    """The worker, run here at once: it takes the last `taken` files (the
    one before them marked taken by no one, so this process stops there
    and reads it after), then delivers them or fails."""
    delivered: list[list[int]] = []

    def start(
        folder: str,
        files: list[Path],
        default_area: str,
        known: dict[str, str],
        limits: object,  # noqa: ARG001 (the worker's are `BENCH_LIMITS` too)
    ) -> asyncio.Task[bytes | pickle.PickleBuffer]:
        assert claim(folder, len(files) - 1 - taken)
        data = read_claimed(folder, files, default_area, known, BENCH_LIMITS)
        indexes = [index for index, _, _ in pickle.loads(data)]
        delivered.append(indexes)

        async def result() -> bytes | pickle.PickleBuffer:
            if fails:
                raise BrokenProcessPool("the worker died")
            return data

        return asyncio.ensure_future(result())

    monkeypatch.setattr(corpus_spread, "_start_job", start)
    return delivered


@pytest.mark.parametrize("fails", [False, True], ids=["delivers", "dies"])
@pytest.mark.parametrize("taken", [0, 1, 3, 6])
async def test_spread_reads_are_the_serial_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, private_tmp: Path, taken: int, fails: bool
) -> None:
    paths = write_pages(tmp_path / "corpus")
    expected, expected_keys = await serial(paths)
    delivered = fake_worker(monkeypatch, taken, fails)
    key = TitleKeys()
    done: list[Path] = []
    reads = await read_files(
        paths, AREA, known_of(paths), BENCH_LIMITS, key, spread=True, progress=done.append
    )
    assert reads == expected
    # The worker's keys are remembered here too (for the plan), each right.
    assert expected_keys.items() <= key.items()
    assert all(title_key(title) == k for title, k in key.items())
    assert delivered == [list(range(len(paths) - 1, len(paths) - 1 - taken, -1))]
    assert sorted(done) == sorted(paths)
    assert list(private_tmp.iterdir()) == []
    # The serial reads themselves: problems with their lines, the known page unparsed.
    assert expected[5].result is None
    assert [p.line for p in expected[1].result.problems] == [8, 9, 10]  # type: ignore[union-attr]


async def test_a_worker_that_raises_leaves_the_reading_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = write_pages(tmp_path / "corpus")
    expected, _ = await serial(paths)

    def start(*_args: object) -> asyncio.Task[bytes]:
        async def result() -> bytes:
            raise RuntimeError("no worker")

        return asyncio.ensure_future(result())

    monkeypatch.setattr(corpus_spread, "_start_job", start)
    reads = await read_files(paths, AREA, known_of(paths), BENCH_LIMITS, TitleKeys(), spread=True)
    assert reads == expected


async def test_the_worker_process_reads_the_same(tmp_path: Path, private_tmp: Path) -> None:
    """The real worker lane (who reads which file depends on timing)."""
    paths = write_pages(tmp_path / "corpus")
    expected, _ = await serial(paths)
    key = TitleKeys()
    reads = await read_files(paths, AREA, known_of(paths), BENCH_LIMITS, key, spread=True)
    assert reads == expected
    assert all(title_key(title) == k for title, k in key.items())
    assert list(private_tmp.glob("paperbot-parse-*")) == []


@pytest.mark.parametrize("spread", [False, True])
async def test_one_file_or_no_spread_never_starts_the_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spread: bool
) -> None:
    paths = write_pages(tmp_path / "corpus")
    monkeypatch.setattr(corpus_spread, "_start_job", lambda *_args: pytest.fail("started"))
    chosen = paths[:1] if spread else paths
    expected, _ = await serial(chosen)
    reads = await read_files(
        chosen, AREA, known_of(chosen), BENCH_LIMITS, TitleKeys(), spread=spread
    )
    assert reads == expected


@pytest.mark.parametrize("enabled", [True, False])
def test_collector_paused_restores_the_collector(enabled: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert gc.isenabled() == enabled
    finally:
        (gc.enable if was else gc.disable)()
