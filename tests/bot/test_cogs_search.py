"""The /search cog: callbacks with spec_set mocks over a real App."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands

from paperbot.bot.cogs import search as cog_module
from paperbot.bot.cogs.search import Search
from paperbot.bot.errors import UserError
from paperbot.bot.views.paginator import Paginator
from paperbot.config import (
    BUNDLED_CORPUS,
    SearchSettings,
)
from paperbot.core import limits
from paperbot.core.search_render import ResultItem, ResultPages
from paperbot.services.app import App
from tests.support.app import settings_for
from tests.support.commands import complete, invoke
from tests.support.corpus import LoadPages
from tests.support.discord_mocks import MockBot, MockInteraction


@pytest.fixture
async def app(tmp_path: Path, load_pages: LoadPages) -> AsyncIterator[App]:
    search = SearchSettings(page_size=5, cooldown_uses=2, cooldown_seconds=60)
    app = await App.open(settings_for(tmp_path / "paperbot.sqlite3", search=search))
    await load_pages(app, BUNDLED_CORPUS)
    yield app
    await app.close()


@pytest.fixture
def bot(app: App) -> MockBot:
    return MockBot(app=app)


@pytest.fixture
def cog(bot: MockBot) -> Search:
    return Search(bot)


async def run(cog: Search, interaction: Any, query: str, **options: Any) -> None:
    await invoke(cog.search, interaction, query=query, **options)


def sent(interaction: Any) -> dict[str, Any]:
    """Keyword arguments of the message that answered the interaction."""
    if interaction.followup.send.await_count:
        return dict(interaction.followup.send.await_args.kwargs)
    return dict(interaction.response.send_message.await_args.kwargs)


async def test_results_are_public_pages_with_buttons(cog: Search, bot: MockBot) -> None:
    await bot.app.search.refresh()  # warm: answered without deferring
    interaction = MockInteraction(client=bot)
    await run(cog, interaction, "diffusion")
    interaction.response.defer.assert_not_awaited()
    kwargs = sent(interaction)
    assert kwargs["ephemeral"] is False
    assert isinstance(kwargs["view"], Paginator)
    assert kwargs["view"].owner_id == interaction.user.id
    embeds: list[discord.Embed] = kwargs["embeds"]
    assert 1 <= len(embeds) <= 5
    assert all(e.url and e.url.startswith("https://arxiv.org/search/") for e in embeds)
    assert any("**" in (e.description or "") for e in embeds)  # matched terms in bold
    assert kwargs["allowed_mentions"].everyone is False
    assert len(kwargs["content"]) <= limits.CONTENT_MAX


async def test_cold_index_defers_first(cog: Search, bot: MockBot) -> None:
    interaction = MockInteraction(client=bot)
    await run(cog, interaction, "speculative decoding")
    interaction.response.defer.assert_awaited_once_with(ephemeral=False, thinking=True)
    kwargs = sent(interaction)
    assert interaction.followup.send.await_count == 1
    assert "Speculative" in kwargs["embeds"][0].title


async def test_an_unknown_venue_is_a_user_error_listing_the_venues(
    cog: Search, bot: MockBot
) -> None:
    interaction = MockInteraction(client=bot)
    with pytest.raises(UserError, match=r"venue called \*\*nips\*\*. The venues are: .*NeurIPS"):
        await run(cog, interaction, "qlora", venue="nips")


async def test_an_unknown_year_is_a_user_error_listing_the_years(cog: Search, bot: MockBot) -> None:
    interaction = MockInteraction(client=bot)
    with pytest.raises(UserError, match=r"No loaded paper is from 2019. The years are: .*2023"):
        await run(cog, interaction, "qlora", year=2019)
    pattern = r"No loaded \*\*ICLR\*\* paper is from 2023. Its years are: 2026."
    with pytest.raises(UserError, match=pattern):
        await run(cog, interaction, "qlora", venue="iclr", year=2023)


async def test_filters_from_options(cog: Search, bot: MockBot) -> None:
    interaction = MockInteraction(client=bot)
    await run(cog, interaction, "qlora", venue="neurips", year=2023)
    embeds = sent(interaction)["embeds"]
    assert embeds[0].title.startswith("QLoRA")
    assert all("NeurIPS 2023" in (e.footer.text or "") for e in embeds)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("x" * 3000, "too long"),
        ("🙂🙂", "no words"),
        ('" OR 1=1 --', "only common words"),
        ("的", "only common words"),
        ("\u202e\u2066 ", "Type something"),
    ],
)
async def test_bad_queries_are_user_errors(
    cog: Search, bot: MockBot, query: str, message: str
) -> None:
    interaction = MockInteraction(client=bot)
    with pytest.raises(UserError, match=message):
        await run(cog, interaction, query)
    assert not interaction.response.is_done()  # the error handler answers, ephemerally


async def test_nothing_found_is_ephemeral_and_helpful(cog: Search, bot: MockBot) -> None:
    await bot.app.search.refresh()
    interaction = MockInteraction(client=bot)
    await run(cog, interaction, "Toolformr Tols", year=2025)
    kwargs = sent(interaction)
    assert kwargs["ephemeral"] is True
    assert "No papers found" in kwargs["content"]
    assert "Did you mean" in kwargs["content"]
    assert kwargs["allowed_mentions"].everyone is False


async def test_query_text_cannot_ping(cog: Search, bot: MockBot) -> None:
    await bot.app.search.refresh()
    interaction = MockInteraction(client=bot)
    await run(cog, interaction, "@everyone diffusion <@&123>")
    kwargs = sent(interaction)
    assert "@everyone" not in kwargs["content"]
    assert "<@&123>" not in kwargs["content"]
    mentions: discord.AllowedMentions = kwargs["allowed_mentions"]
    assert mentions.to_dict()["parse"] == []


async def test_chinese_user_gets_chinese_texts(cog: Search, bot: MockBot) -> None:
    from paperbot.bot.translator import CatalogTranslator

    translator = CatalogTranslator()
    translator.add_module(cog_module)
    bot.tree.translator = translator
    await bot.app.search.refresh()
    interaction = MockInteraction(client=bot, locale=discord.Locale.chinese)
    await run(cog, interaction, "数据去重")
    kwargs = sent(interaction)
    assert "共找到" in kwargs["content"]
    labels = {str(b.label) for b in kwargs["view"].children if isinstance(b, discord.ui.Button)}
    assert {"上一页", "下一页"} <= labels


def test_every_text_has_a_translation() -> None:
    from paperbot.bot.views import paginator
    from paperbot.core import search_render

    english = [
        cog_module.SEARCH_DESCRIPTION,
        cog_module.QUERY_DESCRIPTION,
        cog_module.VENUE_DESCRIPTION,
        cog_module.YEAR_DESCRIPTION,
        search_render.RESULTS,
        search_render.NOTHING_FOUND,
        search_render.QUERY_TOO_LONG,
        paginator.NOT_YOURS,
        paginator.PREVIOUS,
    ]
    assert all(text in cog_module.ZH_CN for text in english)
    for en, zh in cog_module.ZH_CN.items():
        assert set(_fields(en)) == set(_fields(zh)), en


def _fields(template: str) -> list[str]:
    import string

    return [f for _, f, _, _ in string.Formatter().parse(template) if f]


async def test_venue_autocomplete(cog: Search, bot: MockBot) -> None:
    interaction = MockInteraction(client=bot)
    choices = await complete(Search.venue_autocomplete, cog, interaction, "neur")
    assert [c.value for c in choices] == ["NeurIPS"]
    assert "papers" in choices[0].name
    everything = await complete(Search.venue_autocomplete, cog, interaction, "")
    assert {c.value for c in everything} == {"ICLR", "ICML", "NeurIPS"}
    assert all(len(c.name) <= limits.CHOICE_NAME_MAX for c in everything)
    assert await complete(Search.venue_autocomplete, cog, interaction, "x" * 100) == []


async def test_cooldown_comes_from_settings(cog: Search, bot: MockBot) -> None:
    interaction = MockInteraction(client=bot)
    cooldown = cog_module._cooldown(interaction)
    assert cooldown is not None
    assert (cooldown.rate, cooldown.per) == (2, 60)
    checks = cog.search.checks
    assert checks, "the command must carry the cooldown check"
    # The check itself raises CommandOnCooldown once the rate is spent.
    for _ in range(2):
        assert await discord.utils.maybe_coroutine(checks[0], interaction)
    with pytest.raises(app_commands.CommandOnCooldown):
        await discord.utils.maybe_coroutine(checks[0], interaction)


async def test_cog_load_warms_the_index(cog: Search, bot: MockBot) -> None:
    assert not await bot.app.search.is_current()
    await cog.cog_load()
    assert cog._warmup.task is not None
    await cog._warmup.task
    assert await bot.app.search.is_current()
    await cog.cog_unload()
    interaction = MockInteraction(client=bot)
    await run(cog, interaction, "diffusion")
    interaction.response.defer.assert_not_awaited()  # warm: answered at once


async def test_only_the_shown_page_is_highlighted(
    cog: Search, bot: MockBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = bot.app.search
    search = service.search
    results: list[Any] = []
    asked: list[dict[str, Any]] = []

    async def spy(query: str, **options: Any) -> Any:
        asked.append(options)
        results.append(await search(query, **options))
        return results[-1]

    monkeypatch.setattr(service, "search", spy)
    interaction = MockInteraction(client=bot)
    await run(cog, interaction, "language model")
    assert asked[0]["highlight"] == 5
    assert asked[0]["limit"] == 5 * cog_module.MAX_PAGES
    hits = results[0].hits
    assert len(hits) > 10
    matches = hits[0].ranked_matches
    assert matches.computed() == 5  # the first page only
    view: Paginator = sent(interaction)["view"]
    second = view.pages[1]
    assert matches.computed() == 10
    # The same embeds as with every highlight worked out at once.
    eager = await search("language model", limit=5 * cog_module.MAX_PAGES)
    items = [ResultItem(h.paper, h.matched) for h in eager.hits]
    pages = ResultPages(eager.query, items, total=eager.total, page_size=5)
    assert second.embeds == pages[1].embeds
    assert view.pages[0].embeds == pages[0].embeds


async def test_a_reader_who_voted_gets_their_order_after_saying_thinking(
    cog: Search, bot: MockBot
) -> None:
    """Reordering by the reader's votes may build the picking arrays first
    (seconds on a large corpus): the search says "thinking…" at once, and
    the paper they voted 👎 comes after the others."""
    await bot.app.search.refresh()
    first = MockInteraction(client=bot)
    await run(cog, first, "diffusion")
    first.response.defer.assert_not_awaited()  # no votes: as ranked, answered directly
    ranked = [e.title for e in sent(first)["embeds"]]
    top = (await bot.app.search.search("diffusion", limit=1)).hits[0].paper
    assert ranked[0] == top.title
    user = first.user
    await bot.app.feedback.vote(first.guild_id, user.id, top.id, -1, datetime.now(UTC))
    again = MockInteraction(client=bot, user=user, guild=first.guild)
    await run(cog, again, "diffusion")
    again.response.defer.assert_awaited_once_with(ephemeral=False, thinking=True)
    reordered = [e.title for e in sent(again)["embeds"]]
    assert reordered[0] != top.title
