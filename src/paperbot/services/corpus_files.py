"""Which files a corpus load reads: the digest files named, or found in the
folders named (not recursively), each page known by its file name."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from paperbot.core.models import Problem

CORPUS_SUFFIXES = (".txt", ".md")


class CorpusPathError(Exception):
    """A path given to load does not exist or holds no digest files."""


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
