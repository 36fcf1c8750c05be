"""Corpus pages written and loaded the way the tests do it.

`load_pages` is what the `load_pages` fixture (tests/conftest.py) hands out:
the one place that says which default area and which "now" a test load uses.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Protocol

import pytest

from paperbot.core.corpus import CorpusLimits
from paperbot.services.app import App
from paperbot.services.corpus import LoadReport, load_corpus
from paperbot.storage import Database
from tests.support.app import FIXED_NOW

#: The area of a page whose header names none (what `paperbot load` defaults to).
DEFAULT_AREA = "预训练"
HEADER = "📚 预训练¶\n\n🧠 ICML2025 · {n} 篇论文解读\n\n"
TITLES = ("Alpha Paper", "Beta Paper", "Gamma Paper", "Delta Paper")


def page(*titles: str) -> str:
    """A line-layout ICML 2025 page holding these papers."""
    return HEADER.format(n=len(titles)) + "".join(f"{t}: {t} 的摘要。\n" for t in titles)


def refuse_listing(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Listing `folder` fails as an unreadable folder's does (EACCES): tests
    run as root, where chmod 000 does not stop reading."""
    real_iterdir = Path.iterdir

    def refuse(self: Path) -> Generator[Path, None, None]:
        if self == folder:
            raise PermissionError(13, "Permission denied", str(self))
        return real_iterdir(self)

    monkeypatch.setattr(Path, "iterdir", refuse)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


class LoadPages(Protocol):
    async def __call__(
        self,
        into: Database | App,
        *paths: Path,
        allow_shrink: bool = False,
        startup: bool = False,
        limits: CorpusLimits | None = None,
    ) -> LoadReport: ...


async def load_pages(
    into: Database | App,
    *paths: Path,
    allow_shrink: bool = False,
    startup: bool = False,
    limits: CorpusLimits | None = None,
) -> LoadReport:
    """Load `paths` into a database, or through an App's corpus service, at FIXED_NOW."""
    if isinstance(into, App):
        return await into.corpus.load(
            list(paths),
            default_area=DEFAULT_AREA,
            now=FIXED_NOW,
            allow_shrink=allow_shrink,
            startup=startup,
            limits=limits,
        )
    return await load_corpus(
        into,
        list(paths),
        default_area=DEFAULT_AREA,
        now=FIXED_NOW,
        allow_shrink=allow_shrink,
        startup=startup,
        limits=limits,
    )
