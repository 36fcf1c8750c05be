"""Reading a load's files on both cores: this process takes files from the
front of the list, a worker process (lane `SPREAD_LANE`) from the back,
until they meet; for `paperbot load` at scale, whose loop has nothing else
to do. Each file is still read by `read_one` whole, so the result is the
serial one; only where it was worked out differs.

Who reads which file is decided as they go, not up front: the worker
starts once the fork server has imported its modules (a few tenths of a
second into the parse, more on a busy machine), and the faster side
simply reads more. A file is taken by creating its marker in a private
folder (`O_EXCL`: exactly one side succeeds). Taking from both ends, each
side stops at its first file already taken, so this process holds a
prefix of the files and the worker the rest. If the worker fails or dies,
this process reads what it did not deliver.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import pickle
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from paperbot.core.corpus import CorpusLimits
from paperbot.core.corpus_pack import PackedFile, pack, unpack
from paperbot.core.models import ParsedFile, Problem
from paperbot.core.text import TitleKeys
from paperbot.services import worker_transfer, workers
from paperbot.services.corpus_files import FileRead, corpus_listing, read_one

log = logging.getLogger(__name__)

SPREAD_LANE = 1
"""The worker lane that reads (both are idle while a load parses)."""

#: What the worker sends back per file: its index, fingerprint and outcome.
_Packed = tuple[int, str | None, PackedFile | Problem | None]

#: While a worker starts and delivers, the threads that talk to it here get
#: the interpreter this often, not every 5 ms (Python's default): each of
#: their many steps otherwise waits out the parse's turn.
_SWITCH_SECONDS = 0.0005


async def read_files(
    files: Sequence[Path],
    default_area: str,
    known: Mapping[str, str],
    limits: CorpusLimits,
    key: TitleKeys,
    *,
    spread: bool = False,
    progress: Callable[[Path], object] | None = None,
) -> list[FileRead]:
    """`read_one` of every file, in order; with `spread` (and two files or
    more) shared with a worker process."""
    if not spread or len(files) < 2:
        return [await _read(path, default_area, known, limits, key, progress) for path in files]
    folder = tempfile.mkdtemp(prefix="paperbot-parse-")
    switch = sys.getswitchinterval()
    sys.setswitchinterval(_SWITCH_SECONDS)
    try:
        job = _start_job(folder, list(files), default_area, known, limits)
        reads: dict[int, FileRead] = {}
        for index, path in enumerate(files):
            if not claim(folder, index):
                break  # the worker has this file and every one after it
            reads[index] = await _read(path, default_area, known, limits, key, progress)
        for index, read in await _delivered(job, files, key):
            reads[index] = read
            if progress is not None:
                progress(read.path)
    finally:
        sys.setswitchinterval(switch)
        shutil.rmtree(folder, ignore_errors=True)
    for index, path in enumerate(files):
        if index not in reads:  # the worker failed: read here, as without it
            reads[index] = await _read(path, default_area, known, limits, key, progress)
    return [reads[index] for index in range(len(files))]


def _start_job(
    folder: str,
    files: list[Path],
    default_area: str,
    known: Mapping[str, str],
    limits: CorpusLimits,
) -> asyncio.Task[bytes | pickle.PickleBuffer]:
    """`read_claimed` in the worker lane, submitted from a thread: starting
    the worker waits for the fork server's imports, which must not hold
    this loop (it parses meanwhile)."""
    run = workers.in_lane(SPREAD_LANE, read_claimed, folder, files, default_area, known, limits)
    return asyncio.create_task(asyncio.to_thread(asyncio.run, run))


async def _read(
    path: Path,
    default_area: str,
    known: Mapping[str, str],
    limits: CorpusLimits,
    key: TitleKeys,
    progress: Callable[[Path], object] | None,
) -> FileRead:
    read = read_one(path, default_area, known, limits, key)
    if progress is not None:
        progress(path)
    # Parsing does not await: let a Ctrl-C (a cancel) in between files.
    await asyncio.sleep(0)
    return read


async def _delivered(
    job: asyncio.Task[bytes | pickle.PickleBuffer], files: Sequence[Path], key: TitleKeys
) -> list[tuple[int, FileRead]]:
    """The worker's reads, their titles' keys remembered in `key`; none
    (logged) when it failed."""
    try:
        packed: list[_Packed] = pickle.loads(await job)
    except Exception as exc:  # noqa: BLE001 - whatever failed (a worker's error, a dead worker), reading here is the remedy
        log.warning(
            "reading in the worker process failed (%s: %s); reading here", type(exc).__name__, exc
        )
        return []
    reads = []
    for index, fingerprint, outcome in packed:
        if isinstance(outcome, PackedFile):
            key.update(zip(outcome.titles, outcome.keys, strict=True))
            reads.append((index, FileRead(files[index], fingerprint, unpack(outcome))))
        else:
            reads.append((index, FileRead(files[index], fingerprint, outcome)))
    return reads


def read_claimed(
    folder: str,
    files: list[Path],
    default_area: str,
    known: Mapping[str, str],
    limits: CorpusLimits,
) -> bytes | pickle.PickleBuffer:
    """In the worker: `read_one` of the files from the back, each claimed
    first, until one is already taken (or the load is over); pickled once
    here, as one buffer `worker_transfer` passes through a file the
    loading process maps (a list of strings would be pickled twice)."""
    key = TitleKeys()
    packed: list[_Packed] = []
    for index in reversed(range(len(files))):
        if not claim(folder, index):
            break
        read = read_one(files[index], default_area, known, limits, key)
        outcome = read.result
        sent = pack(outcome, key) if isinstance(outcome, ParsedFile) else outcome
        packed.append((index, read.fingerprint, sent))
    data = pickle.dumps(packed, protocol=pickle.HIGHEST_PROTOCOL)
    # Out of band when large: then mapped by the loading process, not copied.
    return pickle.PickleBuffer(data) if len(data) >= worker_transfer.OUT_OF_BAND_BYTES else data


def claim(folder: str, index: int) -> bool:
    """Take file `index` for the caller: True for exactly one side."""
    try:
        os.close(os.open(Path(folder, str(index)), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except OSError:  # taken by the other side, or the folder is gone: the load is over
        return False
    return True


def at_scale(paths: Sequence[Path], bytes_per_paper: int) -> bool:
    """Whether the files of `paths` are big enough to hold `WORKER_THRESHOLD` papers."""
    size = 0
    for path in corpus_listing(paths)[0]:
        with contextlib.suppress(OSError):  # reported by the load itself
            size += path.stat().st_size
    return size >= workers.WORKER_THRESHOLD * bytes_per_paper


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside (restored after, if it was on).

    Parsing and planning make several objects a paper, none in a cycle:
    the collections their allocations trigger free nothing, and as the
    heap grows each full one walks it all again (a quarter of the time
    they take at 100,000 papers).
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
