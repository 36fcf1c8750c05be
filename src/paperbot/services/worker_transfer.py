"""A worker's large result back to the parent without copying its arrays twice.

A result crossing the process pool's pipe is pickled whole in the worker,
received whole as one bytes object and unpickled from it: its arrays (an
index of 100,000 papers holds about 100 MB of them) exist twice in the
parent at once. Instead the worker pickles with protocol 5, writes the
arrays' bytes back to back into a file the parent named, and sends only the
rest; the parent maps the file (copy-on-write) and the arrays are views of
that mapping. The file is unlinked as soon as it is mapped (or, if the job
never delivers, when the parent gives up on it).
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
from typing import TypeVar

R = TypeVar("R")

OUT_OF_BAND_BYTES = 8 << 20
"""Results whose arrays hold fewer bytes than this cross the pipe as usual."""


@dataclass(frozen=True, slots=True)
class Spilled:
    """A result whose arrays wait in `path`: the pickle without them, and
    where each array's bytes start and end in the file."""

    data: bytes
    path: str
    spans: tuple[tuple[int, int], ...]


def spill_path() -> str:
    """A fresh file name for one job's arrays (the file is not created)."""
    return str(Path(tempfile.gettempdir()) / f"paperbot-result-{uuid.uuid4().hex}")


def run_and_spill(call: Callable[[], R], path: str) -> R | Spilled:
    """In the worker: `call()`, its arrays written to `path` when large."""
    result = call()
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(result, protocol=5, buffer_callback=buffers.append)
    raws = [buffer.raw() for buffer in buffers]
    if sum(raw.nbytes for raw in raws) < OUT_OF_BAND_BYTES:
        return result
    del result
    spans: list[tuple[int, int]] = []
    at = 0
    try:
        with Path(path).open("xb") as out:
            for raw in raws:
                out.write(raw)
                spans.append((at, at + raw.nbytes))
                at += raw.nbytes
    except BaseException:
        with contextlib.suppress(OSError):
            Path(path).unlink()
        raise
    return Spilled(data, path, tuple(spans))


def receive(value: R | Spilled) -> R:
    """In the parent: the result, its arrays mapped from the file."""
    if not isinstance(value, Spilled):
        return value
    with Path(value.path).open("rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY)
    view = memoryview(mapped)
    result: R = pickle.loads(value.data, buffers=[view[a:b] for a, b in value.spans])
    return result


def discard(path: str) -> None:
    """Remove a job's file, if the worker wrote one (mapped or not)."""
    Path(path).unlink(missing_ok=True)
