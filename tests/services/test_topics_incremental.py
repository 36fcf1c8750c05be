"""The topic corpus follows the corpus like the search index: a load
extends it and the vocabulary topics' matches by the papers added or
changed (the changed and removed ones' entries dead; the matches decided
against each topic's stored feedback profile until the papers added,
changed or removed since pass `REFRESH_SHARE`); `warm` stores both, so a
restart reads them and a new process brings them up to date; too many dead
entries build in full."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from paperbot.bench.incremental import write_pages
from paperbot.bench.synthetic import BENCH_LIMITS, synthetic_papers, write_corpus
from paperbot.config import BUNDLED_TOPICS
from paperbot.core.topics import Profile, Topic, TopicCorpus, build_corpus, match_topic
from paperbot.services import topics as topics_service
from paperbot.services.topics import TopicService, load_vocabulary
from paperbot.storage import search_index
from paperbot.storage.backend import Database
from tests.support.corpus import load_pages
from tests.support.topics import (
    assert_extended_matches,
    assert_same_corpus,
    assert_same_matches,
)

COUNT = 1500


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("topics-append")
    papers = synthetic_papers(COUNT + COUNT // 50)
    write_corpus(folder / "base", papers[:COUNT])
    write_pages(folder / "more", papers[COUNT:], "more")
    return folder


def service(db: Database) -> TopicService:
    return TopicService(db, load_vocabulary(BUNDLED_TOPICS))


async def full_build(db: Database) -> TopicCorpus:
    columns = await search_index.paper_columns(db)
    return build_corpus(zip(columns.ids, columns.titles, columns.summaries, strict=True))


async def assert_as_built(
    topics: TopicService, db: Database, extra: tuple[Topic, ...] = ()
) -> None:
    """The service's corpus and matches equal a full build's of the stored papers."""
    full = await full_build(db)
    _, corpus = await topics.corpus()
    assert_same_corpus(corpus, full)
    protected = topics.vocabulary.term_words()
    for topic in (*topics.vocabulary.topics, *extra):
        ours = await topics.matches(topic)
        if ours.profile.since:
            # Extended: as the whole corpus matched with the frozen profile.
            frozen = match_topic(topic, full, protected, topics.vocabulary, frozen=ours.profile)
            assert_extended_matches(ours, frozen)
        else:
            assert_same_matches(ours, match_topic(topic, full, protected, topics.vocabulary))


async def profiles(topics: TopicService) -> dict[str, Profile]:
    return {t.key: (await topics.matches(t)).profile for t in topics.vocabulary.topics}


async def test_added_papers_extend_the_corpus_and_the_matches(db: Database, corpora: Path) -> None:
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    topics = service(db)
    await topics.warm()
    assert topics.last_source == "built"
    keyword = topics.resolve("speculative decodng")  # a typo: corrected through corpus words
    await topics.matches(keyword)
    before = await profiles(topics)
    await load_pages(db, corpora / "more", limits=BENCH_LIMITS)
    await topics.warm()
    assert topics.last_source == "appended"
    _, corpus = await topics.corpus()
    assert len(corpus) == COUNT + COUNT // 50
    # Every vocabulary topic kept its profile, counting the papers added.
    assert await profiles(topics) == {
        key: replace(profile, since=COUNT // 50) for key, profile in before.items()
    }
    await assert_as_built(topics, db, (keyword,))


async def test_coverage_counts_the_matches_the_digest_uses(db: Database, corpora: Path) -> None:
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    topics = service(db)
    await topics.warm()
    await load_pages(db, corpora / "more", limits=BENCH_LIMITS)
    await topics.warm()
    report = await topics.coverage()
    assert report.papers == COUNT + COUNT // 50
    for topic, count in report.counts:
        assert count == len(await topics.matches(topic)), topic.key


async def test_past_the_refresh_share_the_topics_are_matched_afresh(
    db: Database, corpora: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The page adds 2%: past a 1% share, every profile is made afresh.
    monkeypatch.setattr("paperbot.core.topics._feedback.REFRESH_SHARE", 0.01)
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    topics = service(db)
    await topics.warm()
    await load_pages(db, corpora / "more", limits=BENCH_LIMITS)
    await topics.warm()
    assert topics.last_source == "appended"  # the corpus is still extended
    assert {p.since for p in (await profiles(topics)).values()} == {0}
    await assert_as_built(topics, db)


async def test_a_restart_reads_the_stored_corpus_and_matches(db: Database, corpora: Path) -> None:
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    await service(db).warm()
    again = service(db)
    await again.warm()
    assert again.last_source == "stored"
    await assert_as_built(again, db)


async def test_a_page_loaded_while_the_bot_was_down_extends_the_stored_corpus(
    db: Database, corpora: Path
) -> None:
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    await service(db).warm()
    await load_pages(db, corpora / "more", limits=BENCH_LIMITS)
    first = service(db)
    await first.warm()
    assert first.last_source == "appended"  # the stored base plus the page...
    await assert_as_built(first, db)
    again = service(db)
    await again.warm()
    assert again.last_source == "stored"  # ...stored again for the next start
    await assert_as_built(again, db)


async def test_two_pages_in_a_row_are_both_appended(
    db: Database, corpora: Path, tmp_path: Path
) -> None:
    pages = sorted((corpora / "more").glob("*.txt"))
    assert len(pages) >= 2
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    topics = service(db)
    await topics.warm()
    for number, page in enumerate(pages[:2]):
        folder = tmp_path / f"page{number}"
        folder.mkdir()
        (folder / page.name).write_bytes(page.read_bytes())
        await load_pages(db, folder, limits=BENCH_LIMITS)
        await topics.warm()
        assert topics.last_source == "appended"
    await assert_as_built(topics, db)


def edited_page(corpora: Path, tmp_path: Path) -> tuple[Path, int]:
    """base's first page with its first paper's summary changed and its
    second paper removed; and the line (in the page) of the changed one."""
    page = sorted((corpora / "base").glob("*.txt"))[0]
    lines = page.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if ": " in line and i > 3)
    lines[at] += "另外补充一句 scaling law。"
    del lines[at + 1]
    changed = tmp_path / "changed"
    changed.mkdir()
    (changed / page.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return changed, at


async def assert_matches_as_built(topics: TopicService, db: Database) -> None:
    """The live papers' matches equal a full build's (the dead entries'
    postings stay until a full build, so only the matches compare)."""
    full = await full_build(db)
    protected = topics.vocabulary.term_words()
    for topic in topics.vocabulary.topics:
        found = await topics.matches(topic)
        # Extended: as the live papers matched with the frozen profile.
        frozen = found.profile if found.profile.since else None
        expected = match_topic(topic, full, protected, topics.vocabulary, frozen=frozen)
        assert np.array_equal(found.ids, expected.ids), topic.key
        assert np.array_equal(found.scores, expected.scores), topic.key
    coverage = await topics.coverage()
    assert coverage.papers == len(full)
    assert len(set(coverage.unmatched_ids)) == len(coverage.unmatched_ids)


async def test_a_changed_or_removed_paper_leaves_dead_entries(
    db: Database, corpora: Path, tmp_path: Path
) -> None:
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    topics = service(db)
    await topics.warm()
    changed, _ = edited_page(corpora, tmp_path)
    await load_pages(db, changed, limits=BENCH_LIMITS)
    await topics.warm()
    assert topics.last_source == "appended"
    _, corpus = await topics.corpus()
    assert len(corpus.dead) == 2
    await assert_matches_as_built(topics, db)


async def test_a_new_process_brings_the_stored_corpus_up_to_date(
    db: Database, corpora: Path, tmp_path: Path
) -> None:
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    await service(db).warm()
    changed, _ = edited_page(corpora, tmp_path)
    await load_pages(db, changed, corpora / "more", limits=BENCH_LIMITS)
    later = service(db)  # a new process: only what was stored
    await later.warm()
    assert later.last_source == "appended"
    await assert_matches_as_built(later, db)


async def test_too_many_dead_entries_build_in_full(
    db: Database, corpora: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(topics_service, "COMPACT_SHARE", 0.0)
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    topics = service(db)
    await topics.warm()
    changed, _ = edited_page(corpora, tmp_path)
    await load_pages(db, changed, limits=BENCH_LIMITS)
    await topics.warm()
    assert topics.last_source == "built"
    await assert_as_built(topics, db)


async def test_matches_stored_with_another_vocabulary_are_matched_again(
    db: Database, corpora: Path, tmp_path: Path
) -> None:
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    await service(db).warm()
    text = BUNDLED_TOPICS.read_text(encoding="utf-8")
    edited = tmp_path / "topics.toml"
    edited.write_text(text.replace('"neural scaling"', '"neural scaling", "token budget"'), "utf-8")
    assert edited.read_text(encoding="utf-8") != text
    topics = TopicService(db, load_vocabulary(edited))
    await topics.warm()
    assert topics.last_source == "stored"  # the corpus is the same...
    await assert_as_built(topics, db)  # ...the matches are the new vocabulary's


async def test_prepare_stored_builds_in_the_stored_form_for_the_next_start(
    db: Database, corpora: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What `paperbot load` does at scale (the stored form from the worker),
    # here at test size in a thread.
    monkeypatch.setattr(topics_service, "_THREAD_THRESHOLD", 0)
    await load_pages(db, corpora / "base", limits=BENCH_LIMITS)
    loader = service(db)
    assert await loader.prepare_stored() == "built"
    assert await loader.prepare_stored() == "stored"
    await load_pages(db, corpora / "more", limits=BENCH_LIMITS)
    assert await loader.prepare_stored() == "appended"  # the stored corpus, extended
    again = service(db)
    await again.warm()
    assert again.last_source == "stored"
    await assert_as_built(again, db)
