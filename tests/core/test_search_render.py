"""Search results as Discord-safe plain data: limits, bold, mentions."""

from __future__ import annotations

import re

import pytest

from paperbot.core import limits
from paperbot.core.models import Paper
from paperbot.core.search import QueryProblem, parse_query
from paperbot.core.search_render import (
    ResultItem,
    ResultPages,
    escape_markdown,
    excerpt,
    match_spans,
    nothing_found,
    query_problem,
    result_pages,
)
from tests.support.search import real_papers


def paper(title: str = "A Paper", summary: str = "摘要。", pid: int = 1) -> Paper:
    return Paper(pid, title, "NeurIPS", 2023, "预训练", (summary,), ())


def check_message_limits(content: str, embeds: tuple[object, ...]) -> None:
    assert len(content) <= limits.CONTENT_MAX
    assert len(embeds) <= limits.EMBEDS_PER_MESSAGE
    assert sum(e.size() for e in embeds) <= limits.EMBED_TOTAL_MAX  # type: ignore[attr-defined]
    for e in embeds:
        assert len(e.title) <= limits.EMBED_TITLE_MAX  # type: ignore[attr-defined]
        assert len(e.description) <= limits.EMBED_DESCRIPTION_MAX  # type: ignore[attr-defined]
        assert len(e.footer or "") <= limits.EMBED_FOOTER_MAX  # type: ignore[attr-defined]


def balanced_bold(text: str) -> bool:
    """Every ** opens and closes (escaped \\* never counts)."""
    return len(re.findall(r"(?<!\\)\*\*", text)) % 2 == 0


LONG_TITLE = "Scaling " * 80  # 640 characters
LONG_SUMMARY = "大模型预训练数据去重。" * 800  # 8,800 characters, many matches


@pytest.mark.parametrize("page_size", [1, 5, 10])
@pytest.mark.parametrize(
    ("title", "summary", "needles"),
    [
        ("QLoRA", "short", ("qlora",)),
        (LONG_TITLE, LONG_SUMMARY, ("去重", "scaling")),
        ("T" * 300, "word " * 3000, ("word",)),
        ("**bold** _it_ `code`", "*" * 5000, ("*",)),
        ("@everyone <@123>", "@here <@&456> 去重 " * 400, ("去重", "here")),
    ],
)
def test_every_page_fits_discord_limits(
    page_size: int, title: str, summary: str, needles: tuple[str, ...]
) -> None:
    items = [ResultItem(paper(title, summary, i), needles) for i in range(1, 24)]
    query = parse_query("去重 " * 60)
    pages = result_pages(query, items, total=500, page_size=page_size)
    assert len(pages) == -(-23 // page_size)
    for page in pages:
        check_message_limits(page.content, page.embeds)
        assert len(page.embeds) <= page_size
        for embed in page.embeds:
            assert balanced_bold(embed.description)
            assert "@everyone" not in embed.title
            assert "@here" not in embed.description
            assert "<@123>" not in embed.title
            assert "<@&456>" not in embed.description


def test_real_corpus_pages_fit() -> None:
    items = [ResultItem(p, ("数据", "model")) for p in real_papers()]
    for page in result_pages(parse_query("数据 model"), items, total=len(items), page_size=10):
        check_message_limits(page.content, page.embeds)


def test_embed_links_title_and_shows_venue_year() -> None:
    [page] = result_pages(
        parse_query("qlora"),
        [ResultItem(paper("QLoRA: Efficient Finetuning", "我们提出 QLoRA。"), ("qlora",))],
        total=1,
        page_size=5,
    )
    [embed] = page.embeds
    assert embed.url is not None
    assert embed.url.startswith("https://arxiv.org/search/?query=QLoRA")
    assert "NeurIPS 2023" in (embed.footer or "")
    assert "**QLoRA**" in embed.description


@pytest.mark.parametrize(
    ("text", "needles", "bolded"),
    [
        ("我们提出 QLoRA 方法", ("qlora",), ["QLoRA"]),
        ("ＱＬｏＲＡ 全角", ("qlora",), ["ＱＬｏＲＡ"]),  # found through NFKC, shown as written
        ("数据去重很重要", ("去重", "数据"), ["数据", "去重"]),
        ("URL and RL", ("rl",), ["RL"]),  # Latin needles match whole words only
        ("no match here", ("去重",), []),
    ],
)
def test_highlight(text: str, needles: tuple[str, ...], bolded: list[str]) -> None:
    shown = excerpt(text, needles, 200)
    assert re.findall(r"\*\*(.+?)\*\*", shown) == bolded


def test_excerpt_starts_near_the_first_match_and_trims_cleanly() -> None:
    summary = "开头的句子。" * 60 + "这里讲 Shampoo 优化器。" + "结尾的句子。" * 60
    shown = excerpt(summary, ("shampoo",), 120)
    assert shown.startswith("…")
    assert "**Shampoo**" in shown
    assert len(shown.replace("**", "")) <= 121
    assert shown.endswith(("…", "。"))


def test_trimming_never_breaks_a_bold_marker() -> None:
    summary = "x " * 50 + "speculative decoding " * 100
    for limit in range(20, 200, 7):
        shown = excerpt(summary, ("speculative", "decoding"), limit)
        assert balanced_bold(shown), (limit, shown)


def test_markdown_in_corpus_text_is_inert() -> None:
    assert escape_markdown("a*b_c~d|e`f[g]h") == r"a\*b\_c\~d\|e\`f\[g\]h"
    assert escape_markdown("> quote") == r"\> quote"
    assert escape_markdown(r"\(p \gg dn\)") == r"\\(p \\gg dn\\)"


def test_match_spans_do_not_overlap() -> None:
    spans = match_spans("数据去重数据", ("数据去重", "去重", "数据"))
    assert spans == [(0, 4), (4, 6)]


def test_pages_are_rendered_lazily() -> None:
    items = [ResultItem(paper(pid=i), ()) for i in range(1, 12)]
    pages = ResultPages(parse_query("x"), items, total=11, page_size=5)
    assert len(pages) == 3
    assert pages.computed() == 0
    assert pages[2].embeds[0].footer is not None
    assert "11/11" in pages[2].embeds[0].footer
    assert pages.computed() == 1
    assert pages[-1] is pages[2]
    assert pages.computed() == 1  # page 2 was the one rendered, and it is kept
    with pytest.raises(IndexError):
        pages[3]


def test_nothing_found_offers_titles_and_is_safe() -> None:
    message = nothing_found(parse_query("shampo @everyone"), ["Shampoo <@1> paper"] * 3)
    assert "Did you mean" in message.content
    assert "@everyone" not in message.content
    assert "<@1>" not in message.content
    assert len(message.content) <= limits.CONTENT_MAX
    assert "Try" in nothing_found(parse_query("xqz"), []).content


def test_query_echo_is_trimmed() -> None:
    message = nothing_found(parse_query("词" * 5000, max_length=10_000), [])
    assert len(message.content) <= limits.CONTENT_MAX


@pytest.mark.parametrize("problem", list(QueryProblem))
def test_each_problem_has_its_message(problem: QueryProblem) -> None:
    text = query_problem(problem, 300)
    assert text
    assert "{" not in text
    assert ("300" in text) == (problem is QueryProblem.TOO_LONG)


def test_an_unknown_venue_names_it_safely_and_lists_the_loaded_ones() -> None:
    text = query_problem(
        QueryProblem.UNKNOWN_VENUE, 300, venue="*foo* @everyone", venues=["ICLR", "NeurIPS"]
    )
    assert text.startswith("No loaded paper is from a venue called **")
    assert "\\*foo\\*" in text
    assert "@everyone" not in text
    assert text.endswith("The venues are: ICLR, NeurIPS.")
    many = query_problem(QueryProblem.UNKNOWN_VENUE, 300, venue="x", venues=["V" * 50] * 100)
    assert len(many) <= limits.CONTENT_MAX


def test_an_unknown_year_lists_the_loaded_ones() -> None:
    text = query_problem(QueryProblem.UNKNOWN_YEAR, 300, year=2019, years=[2023, 2025])
    assert text == "No loaded paper is from 2019. The years are: 2023, 2025."
    of_venue = query_problem(QueryProblem.UNKNOWN_YEAR, 300, venue="ICLR", year=2023, years=[2026])
    assert of_venue == "No loaded **ICLR** paper is from 2023. Its years are: 2026."


def test_messages_are_translated() -> None:
    table = {"No papers found for **{query}**.": "没有找到 **{query}**。"}
    message = nothing_found(parse_query("xqz"), [], tr=lambda s: table.get(s, s))
    assert message.content.startswith("没有找到 **xqz**。")
