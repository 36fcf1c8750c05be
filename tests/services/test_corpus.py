"""Loading into a real SQLite file: idempotence, updates in place, bad files, atomicity."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paperbot.core.models import Paper, PaperRecord
from paperbot.services.corpus import load_corpus
from paperbot.services.corpus_files import CorpusPathError
from paperbot.storage import papers
from paperbot.storage.db import Database
from tests.support.app import FIXED_NOW
from tests.support.corpus import LoadPages

PAGE = "📚 预训练¶\n\n🧠 ICML2025 · 2 篇论文解读\n\nAlpha Paper: 阿尔法摘要。\nBeta Paper: 贝塔摘要。\n"
OTHER = "NeurIPS 2023\n\nAlpha Paper\n\n另一份摘要。\n\nGamma Paper\n\n伽马摘要。\n"


def write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


async def by_title(db: Database) -> dict[str, Paper]:
    return {p.title: p for p in await papers.list_papers(db)}


async def test_shipped_corpus_matches_announced_counts(
    db: Database, bundled_corpus: Path, load_pages: LoadPages
) -> None:
    report = await load_pages(db, bundled_corpus)
    assert report.clean, report.problems
    # Each line-layout page announces its paper count in its header.
    for path in sorted(bundled_corpus.glob("*.txt")):
        announced = re.search(r"(\d+) 篇", path.read_text(encoding="utf-8"))
        if announced:
            found = [
                p
                for p in await papers.list_papers(db)
                if any(s.startswith(path.name) for s in p.sources)
            ]
            entries = sum(1 for p in found for s in p.sources if s.startswith(path.name + ":"))
            assert entries == int(announced.group(1)), path.name
    assert report.new == await papers.paper_count(db)
    assert report.entries - report.duplicates_merged == report.new


async def test_loading_twice_changes_nothing(
    loaded_db: Database, bundled_corpus: Path, load_pages: LoadPages
) -> None:
    before = await papers.list_papers(loaded_db)
    version = await papers.corpus_version(loaded_db)
    report = await load_pages(loaded_db, bundled_corpus)
    assert (report.new, report.updated, report.removed) == (0, 0, 0)
    assert report.unchanged == len(before)
    assert await papers.list_papers(loaded_db) == before
    assert await papers.corpus_version(loaded_db) == version


async def test_edited_file_updates_in_place_and_keeps_other_files(
    db: Database, tmp_path: Path, load_pages: LoadPages
) -> None:
    page, other = (
        write(tmp_path / "icml-2025.txt", PAGE),
        write(tmp_path / "neurips-2023.txt", OTHER),
    )
    await load_pages(db, page, other)
    alpha = (await by_title(db))["Alpha Paper"]
    assert alpha.summaries == ("阿尔法摘要。", "另一份摘要。")

    write(page, PAGE.replace("阿尔法摘要。", "改过的摘要。"))
    report = await load_pages(db, page)
    after = await by_title(db)
    assert report.updated == 1
    assert report.unchanged == 1
    assert after["Alpha Paper"].id == alpha.id
    assert after["Alpha Paper"].summaries == ("改过的摘要。", "另一份摘要。")
    assert "Gamma Paper" in after


async def test_paper_dropped_from_its_only_file_is_removed(
    db: Database, tmp_path: Path, load_pages: LoadPages
) -> None:
    page = write(tmp_path / "icml-2025.txt", PAGE)
    await load_pages(db, page)
    write(page, PAGE.replace("Beta Paper: 贝塔摘要。\n", ""))
    report = await load_pages(db, page)
    assert report.removed == 1
    assert set(await by_title(db)) == {"Alpha Paper"}


async def test_unreadable_file_is_skipped_and_loses_nothing(
    db: Database, tmp_path: Path, load_pages: LoadPages
) -> None:
    page = write(tmp_path / "icml-2025.txt", PAGE)
    await load_pages(db, page)
    write(page, PAGE.split("\n\n", 1)[1].encode("gb18030"))
    report = await load_pages(db, page)
    assert [(p.file, p.line) for p in report.problems] == [("icml-2025.txt", None)]
    assert set(await by_title(db)) == {"Alpha Paper", "Beta Paper"}


async def test_failed_load_leaves_previous_state(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, load_pages: LoadPages
) -> None:
    page = write(tmp_path / "icml-2025.txt", PAGE)
    await load_pages(db, page)
    before = await papers.list_papers(db)
    write(page, PAGE.replace("阿尔法", "新的") + "Delta Paper: 德尔塔。\n")

    real_row = papers._row
    calls = 0

    def crash_on_second_row(record: PaperRecord) -> tuple[object, ...]:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise RuntimeError("simulated crash mid-load")
        return real_row(record)

    monkeypatch.setattr(papers, "_row", crash_on_second_row)
    with pytest.raises(RuntimeError):
        await load_pages(db, page)
    assert await papers.list_papers(db) == before


async def test_missing_path_is_a_clear_error(
    db: Database, tmp_path: Path, load_pages: LoadPages
) -> None:
    with pytest.raises(CorpusPathError, match="no such file or folder"):
        await load_pages(db, tmp_path / "nope")


async def test_get_papers_keeps_requested_order(loaded_db: Database) -> None:
    ids = [p.id for p in await papers.list_papers(loaded_db)][:5]
    wanted = [ids[3], ids[0], 999_999, ids[2]]
    assert [p.id for p in await papers.get_papers(loaded_db, wanted)] == [ids[3], ids[0], ids[2]]


async def test_venue_and_year_filters(loaded_db: Database) -> None:
    venues = {(v.venue, v.year): v.papers for v in await papers.venues(loaded_db)}
    for (venue, year), count in venues.items():
        listed = await papers.list_papers(loaded_db, venue=venue.lower(), year=year)
        assert len(listed) == count
        assert {(p.venue, p.year) for p in listed} == {(venue, year)}


async def test_unchanged_files_are_not_parsed_again(
    db: Database, bundled_corpus: Path, monkeypatch: pytest.MonkeyPatch, load_pages: LoadPages
) -> None:
    first = await load_pages(db, bundled_corpus)

    def must_not_parse(*_args: object) -> None:
        raise AssertionError("an unchanged file was parsed again")

    monkeypatch.setattr("paperbot.services.corpus_files.parse_text", must_not_parse)
    again = await load_pages(db, bundled_corpus)
    assert (again.entries, again.duplicates_merged) == (first.entries, first.duplicates_merged)
    assert (again.new, again.unchanged) == (0, first.new)


async def test_changed_default_area_parses_again(
    db: Database, tmp_path: Path, load_pages: LoadPages
) -> None:
    page = write(tmp_path / "neurips-2023.txt", OTHER)
    await load_pages(db, page)
    report = await load_corpus(db, [page], default_area="对齐", now=FIXED_NOW)
    assert report.updated == 2
    assert {p.area for p in await papers.list_papers(db)} == {"对齐"}


async def test_two_pages_with_one_name_are_refused(
    db: Database, tmp_path: Path, load_pages: LoadPages
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write(tmp_path / "a" / "icml-2025.txt", PAGE)
    write(tmp_path / "b" / "icml-2025.txt", PAGE.replace("Beta", "Other"))
    with pytest.raises(CorpusPathError, match="have the same name"):
        await load_pages(db, tmp_path / "a", tmp_path / "b")
    assert await papers.paper_count(db) == 0


async def test_the_same_file_named_twice_loads_once(
    db: Database, tmp_path: Path, load_pages: LoadPages
) -> None:
    page = write(tmp_path / "icml-2025.txt", PAGE)
    report = await load_pages(db, page, tmp_path)
    assert (report.files, report.new) == (1, 2)
