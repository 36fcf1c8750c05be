"""`/search query [venue] [year]`: bilingual, typo-tolerant paper search.

Results are public (others in the channel see what was found), five papers
per page with Previous/Next buttons only the searcher can press. Problems
with the query and "nothing found" are ephemeral. Rendering is pure
(`core.search_render`); this cog gathers data through `bot.app.search`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from paperbot.bot.errors import UserError
from paperbot.bot.respond import Deferral, localize, reply, thinking_when_slow, translator
from paperbot.bot.suggest import Suggestions
from paperbot.bot.views.paginator import NEXT, NOT_YOURS, PREVIOUS, Paginator
from paperbot.bot.views.reader_actions import MAX_ROWS, reader_items
from paperbot.bot.warmup import WarmUp
from paperbot.core import limits
from paperbot.core import search_render as render
from paperbot.core.lazy import LazySequence
from paperbot.core.search import parse_query
from paperbot.core.search_render import ResultItem
from paperbot.services.search import SearchHit, SearchResult

if TYPE_CHECKING:
    from paperbot.bot.client import PaperBot

log = logging.getLogger(__name__)

SEARCH_DESCRIPTION = "Search the papers: English or Chinese, typos welcome, by venue and year"
QUERY_DESCRIPTION = "Words to find, e.g. speculative decoding, 数据去重, NeurIPS 2023 QLoRA"
VENUE_DESCRIPTION = "Only papers from this venue"
YEAR_DESCRIPTION = "Only papers from this year"
VENUE_CHOICE = "{venue} ({count} papers)"

ZH_CN: dict[str, str] = {
    SEARCH_DESCRIPTION: "搜索论文：中英文皆可，容忍拼写错误，可按会议和年份筛选",
    QUERY_DESCRIPTION: "要查找的词，例如 speculative decoding、数据去重、NeurIPS 2023 QLoRA",
    VENUE_DESCRIPTION: "只看该会议的论文",
    YEAR_DESCRIPTION: "只看该年份的论文",
    VENUE_CHOICE: "{venue}（{count} 篇论文）",
    render.RESULTS: "🔎 **{query}** 共找到 {count} 篇论文{more} · 第 {page}/{pages} 页",
    render.RESULTS_MORE: "（显示最相关的 {shown} 篇，共 {total} 篇）",
    render.NOTHING_FOUND: "没有找到与 **{query}** 相关的论文。",
    render.DID_YOU_MEAN: "你是不是要找：",
    render.TRY_AGAIN: "试试更少或不同的词（中英文皆可），或去掉会议/年份筛选。",
    render.NO_SUMMARY: "（暂无摘要）",
    render.EMPTY_QUERY: (
        "请输入要搜索的内容：标题、关键词、中文关键词，或会议和年份，例如 NeurIPS 2023。"
    ),
    render.QUERY_TOO_LONG: "查询太长了：请控制在 {limit} 个字符以内（几个关键词效果最好）。",
    render.NO_TERMS: (
        "查询里没有可搜索的词（只有标点、符号或表情）。试试标题、关键词或中文关键词。"
    ),
    render.ONLY_COMMON_WORDS: (
        "查询里只有常见词（the、of、的 等），每篇论文都有。请加上标题里的词、关键词或中文关键词。"
    ),
    render.UNKNOWN_VENUE: "已加载的论文里没有来自 **{venue}** 的。现有会议：{venues}。",
    render.UNKNOWN_YEAR: "已加载的论文里没有 {year} 年的。现有年份：{years}。",
    render.UNKNOWN_VENUE_YEAR: "已加载的 **{venue}** 论文里没有 {year} 年的。它的年份：{years}。",
    render.YEAR_DROPPED: "没有 {year} 年的论文匹配，以下结果不限年份。",
    render.UNSUPPORTED_SCRIPT: (
        "查询里没有可搜索的词：只索引了英文和中文，不支持这种文字。试试英文单词或中文关键词。"
    ),
    PREVIOUS: "上一页",
    NEXT: "下一页",
    NOT_YOURS: "只有发起这次搜索的人才能翻页。",
}


def _cooldown(interaction: discord.Interaction[PaperBot]) -> app_commands.Cooldown | None:
    """Per-user rate from `search.cooldown_uses` per `search.cooldown_seconds`."""
    settings = interaction.client.app.settings.search
    return app_commands.Cooldown(settings.cooldown_uses, settings.cooldown_seconds)


class Search(commands.Cog):
    def __init__(self, bot: PaperBot) -> None:
        self.bot = bot
        self._waiting: set[Deferral] = set()  # searches still working toward their answers
        self._warmup = WarmUp("search-warmup", bot.app.search.refresh)
        self._suggestions = Suggestions()

    async def cog_load(self) -> None:
        # Load (or build) the index in the background, so the first /search
        # after start-up does not pay for it.
        self._warmup.start()

    async def cog_unload(self) -> None:
        await self._warmup.stop()

    @app_commands.command(name="search", description=SEARCH_DESCRIPTION)
    @app_commands.describe(query=QUERY_DESCRIPTION, venue=VENUE_DESCRIPTION, year=YEAR_DESCRIPTION)
    @app_commands.checks.dynamic_cooldown(_cooldown, key=lambda i: i.user.id)
    async def search(
        self,
        interaction: discord.Interaction[PaperBot],
        query: app_commands.Range[str, 1, 1000],
        venue: app_commands.Range[str, 1, 100] | None = None,
        year: app_commands.Range[int, 1900, 2100] | None = None,
    ) -> None:
        service = self.bot.app.search
        settings = service.settings
        tr = translator(interaction)
        # Too long / empty / only symbols: answered before any index work.
        precheck = parse_query(query, venue=venue, year=year, max_length=settings.max_query_length)
        if precheck.problem is not None:
            raise UserError(render.query_problem(precheck.problem, settings.max_query_length, tr))
        async with (
            thinking_when_slow(interaction, ephemeral=False) as thinking,
            self._in_line(thinking),
        ):
            result = await self._searched(thinking, query, venue, year)
            hits = await self._personal_order(interaction, thinking, result.hits)
        if result.problem is not None:
            raise UserError(
                render.query_problem(
                    result.problem,
                    settings.max_query_length,
                    tr,
                    venue=result.query.venue,
                    venues=result.venues,
                    year=result.query.year,
                    years=result.years,
                )
            )
        if not hits:
            message = render.nothing_found(result.query, result.suggestions, tr)
            await reply(interaction, message)
            return
        items = _result_items(hits)
        pages = render.ResultPages(
            result.query,
            items,
            total=result.total,
            page_size=settings.page_size,
            tr=tr,
            year_dropped=result.year_dropped,
        )
        # The paginator's own row (the first) leaves 4 for the results' 👍 👎 🔖.
        nav = 1 if len(pages) > 1 else 0
        await Paginator(
            pages,
            owner_id=interaction.user.id,
            tr=tr,
            page_items=lambda page: reader_items(page, MAX_ROWS - nav, first_row=nav),
        ).start(interaction)

    @asynccontextmanager
    async def _in_line(self, thinking: Deferral) -> AsyncIterator[None]:
        """Around a search's work toward its answer: searches arriving
        together say "thinking…" at once (the database's one connection
        serves their queries in turn), and each arrival hurries the deferral
        of those still working (its work on the loop would delay them)."""
        # Before the first await: searches arriving together must see each
        # other, or each would wait on the database to decide.
        for waiting in self._waiting:
            waiting.hurry()
        crowded = bool(self._waiting)
        self._waiting.add(thinking)
        try:
            if crowded:
                await thinking.now()
            yield
        finally:
            self._waiting.discard(thinking)

    async def _searched(
        self, thinking: Deferral, query: str, venue: str | None, year: int | None
    ) -> SearchResult:
        """The search's result, with "thinking…" said first when the index
        is cold or stale (seconds to load or build)."""
        service = self.bot.app.search
        page_size = service.settings.page_size
        if not await service.is_current():
            await thinking.now()
        # Only the first page's highlight is worked out now; later pages'
        # when the searcher turns to them (see `_result_items`).
        return await service.search(
            query, venue=venue, year=year, limit=page_size * MAX_PAGES, highlight=page_size
        )

    async def _personal_order(
        self,
        interaction: discord.Interaction[PaperBot],
        thinking: Deferral,
        hits: Sequence[SearchHit],
    ) -> Sequence[SearchHit]:
        """The hits reordered by the reader's 👍/👎 profile (`search.personal_order`),
        when they voted here; otherwise as ranked."""
        app = self.bot.app
        guild_id = interaction.guild_id
        if not app.settings.search.personal_order or guild_id is None or len(hits) < 2:
            return hits
        if not await app.feedback.has_votes(guild_id, interaction.user.id):
            return hits
        await thinking.now()  # the picking arrays may need building (seconds on a large corpus)
        corpus = await app.digest.corpus_arrays()
        order = await app.feedback.personal_order(
            guild_id, interaction.user.id, corpus, [h.paper.id for h in hits]
        )
        return [hits[i] for i in order]

    @search.autocomplete("venue")
    async def venue_autocomplete(
        self, interaction: discord.Interaction[PaperBot], current: str
    ) -> list[app_commands.Choice[str]]:
        counts: dict[str, int] = {}
        for row in await self._suggestions.latest(interaction, self.bot.app.corpus.venues()) or []:
            counts[row.venue] = counts.get(row.venue, 0) + row.papers
        typed = current.strip().casefold()
        template = localize(interaction, VENUE_CHOICE, venue="{venue}", count="{count}")
        return [
            app_commands.Choice(
                name=template.format(venue=venue, count=count)[: limits.CHOICE_NAME_MAX],
                value=venue[: limits.CHOICE_VALUE_MAX],
            )
            for venue, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
            if typed in venue.casefold()
        ][: limits.AUTOCOMPLETE_CHOICES_MAX]


# Pages a search can be turned through (page_size results each).
MAX_PAGES = 10


def _result_items(hits: Sequence[SearchHit]) -> LazySequence[ResultItem]:
    """Search hits as render items, each made when its page renders: reading
    `SearchHit.matched` works out that paper's highlight, so a page nobody
    turns to costs nothing."""

    def item(index: int) -> ResultItem:
        hit = hits[index]
        return ResultItem(hit.paper, hit.matched)

    return LazySequence(len(hits), item)


async def setup(bot: PaperBot) -> None:
    await bot.add_cog(Search(bot))
