"""A worker's large result back to the parent without copying its arrays twice.

A result crossing the process pool's pipe is pickled whole in the worker,
received whole as one bytes object and unpickled from it: its arrays (an
index of 100,000 papers holds about 100 MB of them) exist twice in the
parent at once. Instead the worker pickles with protocol 5 straight into a
file the parent named (the pickle is never whole in memory: an index's
texts are ~40 MB of it at 100,000 papers), the arrays' bytes after it, and
sends only where each part lies. The parent reads the pickle from the file
and maps the rest (copy-on-write): the arrays are views of that mapping. The
file is unlinked as soon as it is mapped (or, if the job never delivers,
when the parent gives up on it).
"""

from __future__ import annotations

import contextlib
import mmap
import pickle
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TypeVar

R = TypeVar("R")

OUT_OF_BAND_BYTES = 8 << 20
"""Results whose arrays hold fewer bytes than this cross the pipe as usual."""


@dataclass(frozen=True, slots=True)
class Spilled:
    """A result waiting in `path`: where the pickle without its arrays
    (`data`) and each array's bytes start and end in the file."""

    path: str
    spans: tuple[tuple[int, int], ...]
    data: tuple[int, int]


def spill_path() -> str:
    """A fresh file name for one job's arrays (the file is not created)."""
    return str(Path(tempfile.gettempdir()) / f"paperbot-result-{uuid.uuid4().hex}")


def run_and_spill(call: Callable[[], R], path: str) -> R | Spilled:
    """In the worker: `call()`, its arrays written to `path` when large."""
    result = call()
    buffers: list[pickle.PickleBuffer] = []
    try:
        with Path(path).open("xb") as out:
            # Streamed: the pickle is never whole in memory (an index's
            # texts are ~40 MB of it at 100,000 papers).
            pickle.dump(result, out, protocol=5, buffer_callback=buffers.append)
            data = (0, out.tell())
            raws = [buffer.raw() for buffer in buffers]
            if sum(raw.nbytes for raw in raws) < OUT_OF_BAND_BYTES:
                Path(path).unlink()
                return result
            spans = [_write_aligned(out, raw) for raw in raws]
    except BaseException:
        with contextlib.suppress(OSError):
            Path(path).unlink()
        raise
    return Spilled(path, tuple(spans), data)


def _write_aligned(out: BinaryIO, raw: memoryview) -> tuple[int, int]:
    """`raw` at the next multiple of 64 bytes (so mapped arrays are aligned)."""
    at = -(-out.tell() // 64) * 64
    out.write(bytes(at - out.tell()))
    out.write(raw)
    return at, at + raw.nbytes


def receive(value: R | Spilled) -> R:
    """In the parent: the result, its arrays mapped from the file."""
    if not isinstance(value, Spilled):
        return value
    with Path(value.path).open("rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY)
        view = memoryview(mapped)
        # The pickle read from the file in frames, not mapped: mapped pages
        # would stay resident as long as the arrays (views of the same
        # mapping) live, and not read whole either.
        handle.seek(value.data[0])
        result: R = pickle.load(handle, buffers=[view[a:b] for a, b in value.spans])
    return result


def discard(path: str) -> None:
    """Remove a job's file, if the worker wrote one (mapped or not)."""
    Path(path).unlink(missing_ok=True)
