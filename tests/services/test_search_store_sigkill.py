"""A real SIGKILL in the middle of storing a segment (`paperbot load`'s
append of the search index, then of the topic corpus), then a restart:
the previous stored state is whole and readable, and is brought up to date.

The dying process is a child Python running the real services on the
SQLite file; it dies after writing some of a segment's rows, inside the
segment's transaction."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from paperbot.bench.incremental import write_pages
from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.config import BUNDLED_TOPICS
from paperbot.services import topics_store
from paperbot.services.search import SearchService
from paperbot.services.topics import TopicService, load_vocabulary
from paperbot.storage.db import Database
from tests.support.app import settings_for
from tests.support.corpus import load_pages
from tests.support.process import run_until_killed

COUNT = 1500
STEP = COUNT // 100
SEARCH_ARRAYS = 9  # rows of a search index segment (with its two character counts)

CHILD = textwrap.dedent(
    """
    import asyncio, json, sys, types
    from pathlib import Path
    from paperbot.services.search import SearchService
    from paperbot.services.topics import TopicService, load_vocabulary
    from paperbot.storage import index_segments
    from paperbot.storage.db import Database
    from tests.support.app import settings_for
    from tests.support.process import sigkill_self

    db_path, vocabulary, kill_at = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    calls = []

    def dumps(value):
        # Called once per segment row, inside the segment's transaction.
        calls.append(value)
        if len(calls) == kill_at:
            sigkill_self()
        return json.dumps(value)

    index_segments.json = types.SimpleNamespace(dumps=dumps, loads=json.loads)

    async def main():
        db = await Database.open(db_path)
        await SearchService(db, settings_for(Path(db_path)).search).prepare_stored()
        await TopicService(db, load_vocabulary(vocabulary)).prepare_stored()

    asyncio.run(main())
    """
)


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("segments-sigkill")
    papers = synthetic_papers(COUNT + STEP)
    write_corpus(folder / "base", papers[:COUNT])
    write_pages(folder / "one", papers[COUNT:], "one")
    return folder


async def segment_rows(db: Database) -> dict[str, int]:
    rows = await db.fetch_all("SELECT scope, COUNT(*) FROM index_segments GROUP BY scope")
    return {str(r[0]): int(r[1]) for r in rows}


@pytest.mark.parametrize(
    ("kill_at", "kept"),
    [(3, {}), (SEARCH_ARRAYS + 3, {"index": SEARCH_ARRAYS})],
    ids=["in-the-index-segment", "in-the-topics-segment"],
)
async def test_sigkill_mid_append_leaves_the_previous_state_readable(
    tmp_path: Path, corpora: Path, kill_at: int, kept: dict[str, int]
) -> None:
    path = tmp_path / "paperbot.sqlite3"
    settings = settings_for(path).search
    db = await Database.open(path)
    try:
        await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
        await SearchService(db, settings).refresh()
        await TopicService(db, load_vocabulary(BUNDLED_TOPICS)).warm()
        await load_pages(db, corpora / "one", limits=BENCH_LIMITS)
    finally:
        await db.close()
    run_until_killed(CHILD, path, BUNDLED_TOPICS, kill_at)
    db = await Database.open(path)
    try:
        assert await segment_rows(db) == kept  # the killed segment left no row
        topics_state = await topics_store.current_state(db)
        assert topics_state is not None
        assert topics_state.segments == ()
        search = SearchService(db, settings)
        index = await search.refresh()
        assert index.live == COUNT + STEP
        assert search.last_status is not None
        assert search.last_status.source == ("stored" if kept else "appended")
        topics = TopicService(db, load_vocabulary(BUNDLED_TOPICS))
        await topics.warm()
        assert topics.last_source == "appended"
    finally:
        await db.close()
