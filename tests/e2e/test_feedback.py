"""Reader feedback end to end: 👍 👎 🔖 and "More like this" on a digest post
(as the reader and as someone else, and after a restart), the select menus
of a 10-pick digest and of search results, vote then preview, mute then
digest, /similar, /feedback. Every request body is validated against
Discord's OpenAPI spec by the fixture."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

from paperbot.bot.client import PaperBot
from tests.fake_discord import FakeDiscord, FakeUser
from tests.support.e2e import E2E, StartBot, stop_bot


def utc_now() -> datetime:
    return datetime.now(UTC)


def ids_of(message: dict[str, Any], action: str) -> list[int]:
    """Paper ids of the `action` buttons (pb:r:<action>:<id>) on a message."""
    prefix = f"pb:r:{action}:"
    return [
        int(child["custom_id"].removeprefix(prefix))
        for row in message.get("components", [])
        for child in row["components"]
        if child.get("custom_id", "").startswith(prefix)
    ]


async def post_digest(e2e: E2E, count: int) -> dict[str, Any]:
    await e2e.bot.app.subscriptions.subscribe(e2e.guild.id, e2e.member.id, "reasoning", utc_now())
    await e2e.slash(
        "digest setup", user=e2e.admin, options={"channel": e2e.channel}, time="06:00", count=count
    )
    posted = await e2e.slash("digest now", user=e2e.admin)
    assert "Posted" in posted.text()
    [message] = e2e.fake.channel_history(e2e.channel)
    return message


async def votes(bot: PaperBot, guild_id: int, user: FakeUser) -> tuple[int, int]:
    summary = await bot.app.feedback.summary(
        guild_id, user.id, await bot.app.digest.corpus_arrays()
    )
    return summary.likes, summary.dislikes


async def test_digest_buttons_for_reader_and_stranger_survive_a_restart(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    bot = await start_bot()
    e2e = E2E(fake_discord, bot)
    message = await post_digest(e2e, count=3)
    picks = ids_of(message, "up")
    assert len(picks) == 3
    assert len(message["components"]) == 3  # one row of four buttons per pick
    before = copy.deepcopy(message)
    first = picks[0]

    liked = await e2e.click(message, f"pb:r:up:{first}")
    assert liked.ephemeral
    assert "more papers like this" in liked.text()
    stranger = FakeUser(name="stranger")
    disliked = await e2e.click(message, f"pb:r:down:{first}", user=stranger)
    assert disliked.ephemeral
    assert "fewer papers like this" in disliked.text()
    assert await votes(bot, e2e.guild.id, e2e.member) == (1, 0)
    assert await votes(bot, e2e.guild.id, stranger) == (0, 1)
    undone = await e2e.click(message, f"pb:r:up:{first}")
    assert "removed" in undone.text()
    assert await votes(bot, e2e.guild.id, e2e.member) == (0, 0)

    saved = await e2e.click(message, f"pb:r:save:{first}")
    assert "Saved" in saved.text()
    assert first in await bot.app.library.saved_ids(e2e.guild.id, e2e.member.id)
    more = await e2e.click(message, f"pb:r:more:{first}")
    assert more.ephemeral
    assert 1 <= len(more.embeds) <= 5
    assert all(cid.startswith("pb:r:") for cid in more.custom_ids)
    # The public post never changed for anyone.
    assert fake_discord.channel_history(e2e.channel)[0] == before

    # Restart: a press on the old message still works.
    await stop_bot(bot)
    bot = await start_bot()
    e2e = E2E(fake_discord, bot)
    again = await e2e.click(message, f"pb:r:down:{picks[1]}")
    assert again.ephemeral
    assert "fewer papers like this" in again.text()
    assert await votes(bot, e2e.guild.id, e2e.member) == (0, 1)


async def test_ten_picks_get_one_menu_per_action(e2e: E2E) -> None:
    message = await post_digest(e2e, count=10)
    assert len(message["embeds"]) == 10
    rows = message["components"]
    assert len(rows) == 4
    assert [row["components"][0]["custom_id"] for row in rows] == [
        "pb:rs:up",
        "pb:rs:down",
        "pb:rs:save",
        "pb:rs:more",
    ]
    options = rows[0]["components"][0]["options"]
    assert len(options) == 10
    chosen = options[9]["value"]
    answer = await e2e.click(message, "pb:rs:up", values=[chosen])
    assert answer.ephemeral
    assert "more papers like this" in answer.text()
    assert await votes(e2e.bot, e2e.guild.id, e2e.member) == (1, 0)


async def test_vote_then_preview_never_shows_the_disliked_paper(e2e: E2E) -> None:
    app = e2e.bot.app
    await app.subscriptions.subscribe(e2e.guild.id, e2e.member.id, "reasoning", utc_now())
    first = await e2e.slash("digest preview")
    top = first.embeds[0]["title"]
    plan, _ = await app.digest.plan(guild_id=e2e.guild.id, channel_id=None, count=5)
    await app.feedback.vote(e2e.guild.id, e2e.member.id, plan.picks[0].paper_id, -1, utc_now())
    after = await e2e.slash("digest preview")
    assert top not in {e["title"] for e in after.embeds}


async def test_mute_then_digest(e2e: E2E) -> None:
    app = e2e.bot.app
    await app.subscriptions.subscribe(e2e.guild.id, e2e.member.id, "reasoning", utc_now())
    refused = await e2e.slash("mute", topic="reasoning", scope="server")
    assert refused.ephemeral
    assert "Manage Server" in refused.text()
    mine = await e2e.slash("mute", topic="diffusion")
    assert "Muted" in mine.text()
    listed = await e2e.slash("subscriptions")
    assert any("Muted" in e["title"] for e in listed.embeds)
    muted = await e2e.slash("mute", user=e2e.admin, topic="reasoning", scope="server")
    assert "whole server" in muted.text()
    topic = app.topics.resolve("reasoning")
    matching = set((await app.topics.matches(topic)).ids.tolist())
    plan, _ = await app.digest.plan(guild_id=e2e.guild.id, channel_id=None, count=5)
    assert plan.picks
    assert not matching & {p.paper_id for p in plan.picks}
    undone = await e2e.slash("unmute", user=e2e.admin, topic="reasoning", scope="server")
    assert "Unmuted" in undone.text()


async def test_search_results_carry_reader_menus(e2e: E2E) -> None:
    result = await e2e.slash("search", query="diffusion")
    message = result.message
    assert message is not None
    menus = [cid for cid in result.custom_ids if cid.startswith("pb:rs:")]
    assert menus == ["pb:rs:up", "pb:rs:down", "pb:rs:save", "pb:rs:more"]
    [down] = [
        child
        for row in message["components"]
        for child in row["components"]
        if child.get("custom_id") == "pb:rs:down"
    ]
    option = down["options"][0]["value"]
    answer = await e2e.click(message, "pb:rs:down", values=[option])
    assert "fewer papers like this" in answer.text()


async def test_similar_and_feedback_commands(e2e: E2E) -> None:
    choices = await e2e.autocomplete("similar", focused="paper", paper="mixture of experts")
    assert choices
    similar = await e2e.slash("similar", paper=choices[0]["value"])
    assert similar.ephemeral
    assert 1 <= len(similar.embeds) <= 5
    chinese = await e2e.slash("similar", paper="混合专家")
    assert chinese.embeds
    nothing = await e2e.slash("similar", paper="zzqx qqzx")
    assert "No loaded paper" in nothing.text()
    paper_id = int(choices[0]["value"])
    await e2e.bot.app.feedback.vote(e2e.guild.id, e2e.member.id, paper_id, 1, utc_now())
    shown = await e2e.slash("feedback show")
    assert shown.ephemeral
    assert "1 👍" in shown.text()
    reset = await e2e.slash("feedback reset")
    assert "Forgot your 1 votes" in reset.text()
    assert await votes(e2e.bot, e2e.guild.id, e2e.member) == (0, 0)
