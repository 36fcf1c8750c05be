"""Fixtures shared by every test module."""

from __future__ import annotations

import logging
import multiprocessing.util
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from paperbot.config import BUNDLED_CORPUS
from paperbot.services.app import App
from paperbot.storage import open_database
from paperbot.storage.db import Database
from tests.support import corpus
from tests.support.app import REPO, settings_for
from tests.support.corpus import LoadPages
from tests.support.leaks import leaked_resources
from tests.support.postgres import fresh_schema, postgres_url


def pytest_configure(config: pytest.Config) -> None:
    # multiprocessing makes its own temp folder once per process, where the
    # fork server's socket lives, under whatever `tempfile` says at the time.
    # Made now, it is /tmp/pymp-…: made first inside a test that points
    # `tempfile` at its tmp_path, the socket's path could pass the 107 bytes
    # a Unix socket allows ("AF_UNIX path too long") once pytest's numbered
    # base folder grows, and every later worker in this process would fail.
    multiprocessing.util.get_temp_dir()
    if (3, 12, 0) <= sys.version_info[:3] < (3, 12, 4):
        # python/cpython#117995: these versions call a numbered `?1` placeholder
        # "named" and warn when it is bound from a sequence; 3.12.4 fixed it.
        config.addinivalue_line(
            "filterwarnings",
            r"ignore:Binding \d+ \('\?\d+'\) is a named parameter:DeprecationWarning",
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    """A PostgreSQL test's unclosed connections fail that test, not a later
    one: collected after its fixtures (its event loop too) are finalised."""
    yield
    if item.get_closest_marker("postgres") is not None and (leaked := leaked_resources()):
        pytest.fail("left open: " + "; ".join(leaked), pytrace=False)


@pytest.fixture(autouse=True)
def user_folders(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's config and data folders (platformdirs) are empty ones in tmp:
    no test reads the developer's paperbot.toml or writes into their home."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    return home


@pytest.fixture(autouse=True)
def root_logging() -> Iterator[None]:
    """The CLI's `logging.basicConfig` binds a handler to the stderr of the test
    that first ran it; take it away again, so a later test's log line never
    goes to a stream pytest has closed since."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in root.handlers[:]:
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)


@pytest.fixture
def bundled_corpus() -> Path:
    return BUNDLED_CORPUS


#: Every test taking `db` (or `loaded_db`) runs on each backend: a store whose
#: SQL only works on SQLite fails here as soon as PostgreSQL is available.
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    """A fresh, migrated database: a file in tmp_path, or a new PostgreSQL schema."""
    if request.param == "sqlite":
        database = await Database.open(tmp_path / "paperbot.sqlite3")
        yield database
        await database.close()
        return
    async with fresh_schema(postgres_url()) as url:
        store = await open_database(url)
        yield store  # type: ignore[misc]  # the protocol, standing in for the SQLite class
        await store.close()


@pytest.fixture
async def sqlite_db(tmp_path: Path) -> AsyncIterator[Database]:
    """A fresh SQLite file, for tests of SQLite itself (pragmas, file faults)."""
    database = await Database.open(tmp_path / "paperbot.sqlite3")
    yield database
    await database.close()


@pytest.fixture
def load_pages() -> LoadPages:
    """`await load_pages(db_or_app, *paths, allow_shrink=..., ...)`: a corpus load
    as tests do it (default area 预训练, at FIXED_NOW)."""
    return corpus.load_pages


@pytest.fixture
async def sqlite_loaded_db(
    sqlite_db: Database, bundled_corpus: Path, load_pages: LoadPages
) -> Database:
    await load_pages(sqlite_db, bundled_corpus)
    return sqlite_db


@pytest.fixture
async def loaded_db(db: Database, bundled_corpus: Path, load_pages: LoadPages) -> Database:
    """The database with the shipped corpus loaded."""
    await load_pages(db, bundled_corpus)
    return db


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`tempfile`'s folder for this test alone: what the code under test
    leaves behind there is seen, and none of it lands in the machine's /tmp."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run the CLI in-process with the repo's config file and a database of
    its own in tmp_path, whatever the developer's environment says."""
    monkeypatch.setenv("PAPERBOT_CONFIG", str(REPO / "config" / "paperbot.toml"))
    monkeypatch.setenv("PAPERBOT_DB", str(tmp_path / "cli.sqlite3"))
    for name in ("PAPERBOT_CORPUS", "PAPERBOT_SYNC_GUILD", "PAPERBOT_LOG_LEVEL", "DISCORD_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.fixture
async def loaded_app(tmp_path: Path, load_pages: LoadPages) -> AsyncIterator[App]:
    """A whole App (all services) over a fresh database with the shipped corpus."""
    app = await App.open(settings_for(tmp_path / "paperbot.sqlite3"))
    await load_pages(app, BUNDLED_CORPUS)
    yield app
    await app.close()
