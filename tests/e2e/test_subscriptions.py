"""`/subscribe`, `/unsubscribe`, `/subscriptions` end to end: the real client
against the fake Discord, every request validated against Discord's spec."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from paperbot.bot.client import PaperBot
from tests.fake_discord import CommandUnavailable, FakeUser, button
from tests.support.e2e import E2E, StartBot, stop_bot


@pytest.fixture
async def e2e(e2e: E2E) -> E2E:
    # Let the cog's start-up warm-up finish first: still running, it could
    # prepare the corpus of a load a test makes, and that test would not defer.
    await asyncio.gather(*(t for t in asyncio.all_tasks() if t.get_name() == "topics-warmup"))
    await e2e.bot.app.topics.corpus()  # what the cog's start-up warm-up does
    return e2e


async def test_subscribe_replies_privately_with_both_names_and_count(e2e: E2E) -> None:
    result = await e2e.slash("subscribe", topic="缩放定律")
    assert result.ephemeral
    text = result.text()
    assert "Subscribed to **Scaling laws · 缩放定律**." in text
    assert "papers match it now." in text
    assert "Best matches now:" in text
    assert result.callback is not None
    assert result.callback["data"]["allowed_mentions"]["parse"] == []


async def test_subscribe_after_a_corpus_load_matches_the_new_paper(
    e2e: E2E, tmp_path: Path
) -> None:
    page = tmp_path / "extra.txt"
    page.write_text(
        "📚 预训练¶\n\n🧠 ICML2026 · 1 篇论文解读\n\n"
        "Scaling Laws for Sparse Experts: 研究稀疏专家模型的缩放定律。\n",
        encoding="utf-8",
    )
    await e2e.bot.app.corpus.load([page], default_area="预训练", now=datetime.now(UTC))
    result = await e2e.slash("subscribe", topic="scaling laws")
    # Answered directly, or after "thinking…" when preparing the corpus is slow
    # (tests/bot/test_cogs_subscriptions.py).
    assert result.callback_type in (4, 5)
    assert result.ephemeral
    assert "Subscribed to **Scaling laws · 缩放定律**." in result.text()
    topics = e2e.bot.app.topics
    found = await topics.matches(topics.resolve("scaling laws"))
    assert f"{len(found)} papers match it now." in result.text()
    titles = {p.title for p in await e2e.bot.app.corpus.get_papers(found.ids.tolist())}
    assert "Scaling Laws for Sparse Experts" in titles


async def test_subscribe_in_chinese(e2e: E2E) -> None:
    result = await e2e.slash("subscribe", topic="speculative decoding", locale="zh-CN")
    assert "已订阅 **Speculative decoding · 推测解码**。" in result.text()
    assert "篇论文与之匹配" in result.text()


async def test_subscribe_twice_and_unsubscribe(e2e: E2E) -> None:
    await e2e.slash("subscribe", topic="tokenization")
    again = await e2e.slash("subscribe", topic="分词")
    assert "You already follow **Tokenization · 分词** in this server." in again.text()
    gone = await e2e.slash("unsubscribe", topic="tokenization")
    assert gone.ephemeral
    assert "Unsubscribed from **Tokenization · 分词**." in gone.text()
    missing = await e2e.slash("unsubscribe", topic="tokenization")
    assert "You don't follow **Tokenization · 分词** in this server" in missing.text()


async def test_too_long_topic_is_refused_clearly(e2e: E2E) -> None:
    result = await e2e.slash("subscribe", topic="x" * 150)
    assert result.ephemeral
    assert "A topic can be at most 100 characters; yours has 150." in result.text()


async def test_limit_message(e2e: E2E) -> None:
    for i in range(25):
        await e2e.bot.app.subscriptions.subscribe(
            e2e.guild.id, e2e.member.id, f"keyword{i}", datetime.now(UTC)
        )
    result = await e2e.slash("subscribe", topic="tokenization")
    assert result.ephemeral
    assert "already follow 25 topics in this server" in result.text()


async def test_subscriptions_are_per_user_and_per_server(e2e: E2E) -> None:
    other_guild = e2e.fake.add_guild("Other lab")
    await e2e.fake.join_guild(other_guild)
    someone = FakeUser(name="someone")
    await e2e.slash("subscribe", topic="Alignment and RLHF")
    await e2e.slash("subscribe", topic="Toeplitz")
    await e2e.slash("subscribe", topic="quantization", user=someone)
    await e2e.slash(
        "subscribe",
        topic="Grokking and emergence",
        guild=other_guild,
        channel=other_guild.channels[0],
    )
    mine = await e2e.slash("subscriptions")
    assert mine.ephemeral
    [embed] = mine.embeds
    assert "Alignment and RLHF · 对齐与 RLHF" in embed["description"]
    assert "“Toeplitz” (keyword)" in embed["description"]
    assert "Quantization" not in embed["description"]
    assert "Grokking" not in embed["description"]
    assert embed["footer"]["text"].startswith("2 of 25")
    theirs = await e2e.slash("subscriptions", user=someone)
    assert "Quantization and low-bit training" in theirs.embeds[0]["description"]
    elsewhere = await e2e.slash("subscriptions", guild=other_guild, channel=other_guild.channels[0])
    assert "Grokking and emergence" in elsewhere.embeds[0]["description"]
    assert "RLHF" not in elsewhere.embeds[0]["description"]


async def test_subscribe_autocomplete_payload(e2e: E2E) -> None:
    choices = await e2e.autocomplete("subscribe", focused="topic", topic="缩放")
    assert choices[0] == {"name": "Scaling laws · 缩放定律", "value": "scaling-laws"}
    browse = await e2e.autocomplete("subscribe", focused="topic", topic="")
    assert len(browse) == 25
    keyword = await e2e.autocomplete("subscribe", focused="topic", topic="Hyena")
    assert keyword[0]["value"] == "Hyena"
    assert "keyword" in keyword[0]["name"]
    # Picking a suggestion subscribes to exactly that topic.
    result = await e2e.slash("subscribe", topic=choices[0]["value"])
    assert "Scaling laws · 缩放定律" in result.text()


async def test_unsubscribe_autocomplete_lists_own_topics(e2e: E2E) -> None:
    await e2e.slash("subscribe", topic="scaling laws")
    await e2e.slash("subscribe", topic="Toeplitz")
    await e2e.slash("subscribe", topic="tokenization", user=FakeUser(name="other"))
    choices = await e2e.autocomplete("unsubscribe", focused="topic", topic="")
    assert [c["value"] for c in choices] == ["scaling-laws", "toeplitz"]
    result = await e2e.slash("unsubscribe", topic=choices[1]["value"])
    assert "Unsubscribed from **“Toeplitz” (keyword)**." in result.text()


@pytest.mark.parametrize(
    ("command", "options"),
    [("subscribe", {"topic": "x"}), ("unsubscribe", {"topic": "x"}), ("subscriptions", {})],
)
async def test_commands_are_not_offered_in_dms(
    e2e: E2E, command: str, options: dict[str, str]
) -> None:
    with pytest.raises(CommandUnavailable):
        await e2e.dm(command, options=options)


async def test_subscriptions_survive_a_restart(e2e: E2E, start_bot: StartBot) -> None:
    await e2e.slash("subscribe", topic="model merging")
    settings = e2e.bot.app.settings
    await stop_bot(e2e.bot)
    bot: PaperBot = await start_bot(settings)
    e2e.bot = bot
    result = await e2e.slash("subscriptions")
    assert "Model merging · 模型合并" in result.embeds[0]["description"]


async def test_a_keyword_nothing_matches_can_be_swapped_for_an_offered_topic(e2e: E2E) -> None:
    offered = await e2e.slash("subscribe", topic="lora adapters")
    assert offered.ephemeral
    assert "No paper matches it yet" in offered.text()
    peft = button(offered.message or {}, "Follow Fine-tuning and PEFT")
    assert peft["label"] == "Follow Fine-tuning and PEFT · 微调与参数高效微调 instead"

    stranger = await e2e.click(offered.message, peft["custom_id"], user=FakeUser(name="other"))
    assert stranger.ephemeral
    assert "These buttons are for the reader who used /subscribe." in stranger.text()

    done = await e2e.click(offered.message, peft["custom_id"])
    assert done.message is not None
    text = done.message["content"]
    assert text.startswith(
        "Now following **Fine-tuning and PEFT · 微调与参数高效微调** in place of "
        "“lora adapters” (keyword)."
    )
    assert "papers match it now." in text
    assert done.message["components"] == []
    mine = await e2e.slash("subscriptions")
    [embed] = mine.embeds
    assert "Fine-tuning and PEFT" in embed["description"]
    assert "lora adapters" not in embed["description"]
    assert embed["footer"]["text"].startswith("1 of 25")
