"""Which files a corpus load reads: the digest files named, or found in the
folders named (not recursively), each page known by its file name; and
reading one (`read_one`: within the size limit, skipped when its
fingerprint is unchanged, else decoded and parsed)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from paperbot.core.corpus import PARSER_VERSION, CorpusLimits, decode_page, parse_text
from paperbot.core.models import ParsedFile, Problem
from paperbot.core.text import TitleKeys

CORPUS_SUFFIXES = (".txt", ".md")


class CorpusPathError(Exception):
    """A path given to load does not exist or holds no digest files."""


def is_url(text: str) -> bool:
    """A page or feed to fetch (`services.sources`), not a path to read."""
    return text.startswith(("http://", "https://"))


def corpus_files(paths: Iterable[Path]) -> list[Path]:
    """Digest files named directly, or found (sorted) in the folders named."""
    return corpus_listing(paths)[0]


def corpus_listing(paths: Iterable[Path]) -> tuple[list[Path], list[Problem]]:
    """Digest files named directly or found (sorted) in the folders named, and
    a problem for each subfolder (folders are not searched recursively).

    A page is known by its file name (an edited page replaces what it said
    before), so two different files with one name in a single load are
    refused rather than letting one silently replace the other.
    """
    files: list[Path] = []
    skipped: list[Problem] = []
    for path in paths:
        if path.is_dir():
            found, subfolders = _folder_entries(path)
            files.extend(found)
            skipped.extend(
                Problem(f"{sub.name}/", None, SUBFOLDER_SKIPPED, warning=True) for sub in subfolders
            )
        elif path.is_file():
            files.append(path)
        else:
            raise CorpusPathError(f"{path}: no such file or folder")
    return _unique_names(files), skipped


SUBFOLDER_SKIPPED = (
    "a subfolder: not loaded (folders are not searched recursively; name it to load it)"
)


def _folder_entries(folder: Path) -> tuple[list[Path], list[Path]]:
    """(digest files, visible subfolders) of one folder, sorted."""
    try:
        children = sorted(folder.iterdir())
        files = [p for p in children if p.suffix.lower() in CORPUS_SUFFIXES and p.is_file()]
        subfolders = [p for p in children if p.is_dir() and not p.name.startswith(".")]
    except OSError as exc:
        raise CorpusPathError(f"cannot read folder {folder}: {exc.strerror}") from None
    return files, subfolders


def _unique_names(files: list[Path]) -> list[Path]:
    unique = list(dict.fromkeys(f.resolve() for f in files))
    names: dict[str, Path] = {}
    for file in unique:
        if file.name in names:
            raise CorpusPathError(
                f"{names[file.name]} and {file} have the same name: a page is known by its "
                "file name, so rename one or load them separately"
            )
        names[file.name] = file
    return unique


@dataclass(frozen=True, slots=True)
class FileRead:
    """One file's outcome for a load: parsed, a problem, or unchanged since the last load
    (or held back: then its stored papers are kept, as if unchanged)."""

    path: Path
    fingerprint: str | None
    result: ParsedFile | Problem | None

    @property
    def name(self) -> str:
        return self.path.name

    def held(self) -> FileRead:
        return FileRead(self.path, None, None)


def read_one(
    path: Path,
    default_area: str,
    known: Mapping[str, str],
    limits: CorpusLimits,
    key: TitleKeys,
) -> FileRead:
    try:
        data = _read_within(path, limits.max_file_bytes)
    except OSError as exc:
        return FileRead(
            path, None, Problem(path.name, None, f"cannot read: {exc.strerror}: skipped")
        )
    if data is None:
        size_mb = limits.max_file_bytes / (1024 * 1024)
        reason = f"larger than corpus.max_file_mb ({size_mb:g} MB): skipped"
        return FileRead(path, None, Problem(path.name, None, reason))
    fingerprint = file_fingerprint(data, default_area, limits)
    if known.get(path.name) == fingerprint:
        return FileRead(path, fingerprint, None)
    decoded = decode_page(data, path.name)
    if isinstance(decoded, Problem):
        return FileRead(path, None, decoded)
    text, bad_lines = decoded
    parsed = parse_text(text, path.name, default_area, limits, key)
    parsed = replace(parsed, problems=tuple(sorted((*bad_lines, *parsed.problems), key=_line_of)))
    return FileRead(path, fingerprint, parsed)


def _line_of(problem: Problem) -> int:
    return problem.line or 0


def _read_within(path: Path, max_bytes: int) -> bytes | None:
    """The file's bytes, or None when it is larger than `max_bytes` (read no
    further than that, whatever the file claims its size is)."""
    # In chunks: `read(max_bytes + 1)` allocates that much up front, which a
    # generous limit (the benchmarks' 1 TB) turns into a MemoryError.
    chunks: list[bytes] = []
    size = 0
    with path.open("rb") as handle:
        while chunk := handle.read(min(_READ_CHUNK, max_bytes + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
    return None if size > max_bytes else b"".join(chunks)


_READ_CHUNK = 1 << 20


def file_fingerprint(data: bytes, default_area: str, limits: CorpusLimits | None = None) -> str:
    """Changes when the bytes, the default area, the limits or the parser change."""
    limits = limits or CorpusLimits()
    digest = hashlib.sha256(f"{PARSER_VERSION}\0{default_area}\0{limits}\0".encode())
    digest.update(data)
    return digest.hexdigest()
