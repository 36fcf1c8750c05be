"""Every URL the bot sends stays within Discord's 2,048-character URL limit (issue 13, item 6)."""

from __future__ import annotations

from datetime import date
from urllib.parse import parse_qs, urlsplit

import pytest

from paperbot.core import limits
from paperbot.core.digest import DigestPlan, Pick
from paperbot.core.digest_render import digest_header, render_digest
from paperbot.core.links import arxiv_search_url
from paperbot.core.models import Paper
from paperbot.core.search_render import ResultItem, result_embed

LONG_TITLES = [
    pytest.param("A" * 2600, id="2600 ascii"),
    pytest.param("Ünïcödé " * 40, id="320 latin accents"),
    pytest.param("标题" * 150, id="300 cjk"),
    pytest.param("😀" * 250, id="250 emoji"),
    pytest.param("a&b=c%d " * 400, id="reserved characters"),
]


@pytest.mark.parametrize("title", LONG_TITLES)
def test_arxiv_link_is_within_discord_url_limit(title: str) -> None:
    url = arxiv_search_url(title)
    assert len(url) <= limits.URL_MAX
    query = parse_qs(urlsplit(url).query)["query"][0]
    assert title.startswith(query)
    assert len(query) > 50


@pytest.mark.parametrize("title", ["Attention Is All You Need", "数据去重 at scale", "x" * 1000])
def test_short_titles_are_linked_whole(title: str) -> None:
    url = arxiv_search_url(title)
    assert parse_qs(urlsplit(url).query)["query"][0] == title


@pytest.mark.parametrize("title", LONG_TITLES)
def test_search_embed_url_is_within_limit(title: str) -> None:
    paper = Paper(1, title, "ICML", 2026, "预训练", ("摘要。",), ("a.txt:1",))
    embed = result_embed(ResultItem(paper, ()), position=1, total=1, budget=5000)
    assert embed.url is not None
    assert len(embed.url) <= limits.URL_MAX


@pytest.mark.parametrize("title", LONG_TITLES)
def test_digest_embed_url_is_within_limit(title: str) -> None:
    paper = Paper(1, title, "ICML", 2026, "预训练", ("摘要。",), ("a.txt:1",))
    plan = DigestPlan((Pick(1, "newest"),), 1, 0)
    message = render_digest(plan, {1: paper}, digest_header(date(2026, 1, 1)))
    assert message.embeds[0].url is not None
    assert len(message.embeds[0].url) <= limits.URL_MAX


def test_result_pages_say_when_a_year_was_dropped() -> None:
    from paperbot.core.search import ParsedQuery
    from paperbot.core.search_render import ResultPages

    paper = Paper(1, "Scaling Laws", "ICML", 2026, "预训练", ("摘要。",), ("a.txt:1",))
    pages = ResultPages(
        ParsedQuery("scaling laws 1999"),
        [ResultItem(paper, ())],
        total=1,
        page_size=5,
        year_dropped=1999,
    )
    assert "Nothing from 1999 matched, so these are from any year." in pages[0].content
