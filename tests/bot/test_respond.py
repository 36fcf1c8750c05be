"""`bot.respond`: reply or follow up, ephemeral, pinging nobody, in the user's language;
"thinking…" when the work before the answer is slow."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import discord
import pytest

from paperbot.bot import respond
from paperbot.bot.translator import CatalogTranslator
from paperbot.core.render import EmbedData, MessageData
from tests.support.discord_mocks import MockInteraction, MockMessage

HELLO = "Hello {name}"
CATALOG = {HELLO: "你好 {name}", "Next": "下一页"}


async def _answered(how: str) -> MockInteraction:
    """An interaction not yet answered (`fresh`), deferred, or already replied to."""
    interaction = MockInteraction()
    if how == "deferred":
        await interaction.response.defer(thinking=True)
    elif how == "replied":
        await interaction.response.send_message("first")
    return interaction


def _sent_with(interaction: MockInteraction, how: str) -> tuple[Any, dict[str, Any]]:
    """The mock that must have sent the reply, and its keyword arguments."""
    method = interaction.response.send_message if how == "fresh" else interaction.followup.send
    sent = method.await_args_list[-1]
    return method, dict(sent.kwargs)


@pytest.mark.parametrize(
    ("how", "ephemeral", "expected_ephemeral"),
    [
        ("fresh", None, True),
        ("fresh", False, False),
        ("deferred", None, True),
        ("deferred", False, False),
        ("replied", None, True),
        ("replied", True, True),
    ],
)
async def test_first_response_or_follow_up(
    how: str, ephemeral: bool | None, expected_ephemeral: bool
) -> None:
    interaction = await _answered(how)
    if ephemeral is None:
        returned = await respond.reply(interaction, "hi @everyone")
    else:
        returned = await respond.reply(interaction, "hi @everyone", ephemeral=ephemeral)
    method, kwargs = _sent_with(interaction, how)
    assert kwargs["content"] == "hi @everyone"
    assert kwargs["ephemeral"] is expected_ephemeral
    assert "view" not in kwargs
    if how == "fresh":
        interaction.followup.send.assert_not_awaited()
        assert returned is None
    else:
        assert method.await_count == 1
        assert kwargs["wait"] is True
        assert isinstance(returned, MockMessage)  # the follow-up, for later edits
        if how == "deferred":
            interaction.response.send_message.assert_not_awaited()


@pytest.mark.parametrize(
    ("message", "pinged"),
    [
        ("plain text <@123> @here", []),
        (MessageData(content="a digest for <@5>", mention_user_ids=(5,)), ["5"]),
        (MessageData(embeds=(EmbedData(title="only an embed"),)), []),
    ],
)
@pytest.mark.parametrize("how", ["fresh", "deferred"])
async def test_pings_only_the_users_the_message_lists(
    how: str, message: MessageData | str, pinged: list[str]
) -> None:
    interaction = await _answered(how)
    await respond.reply(interaction, message)
    _, kwargs = _sent_with(interaction, how)
    mentions: discord.AllowedMentions = kwargs["allowed_mentions"]
    assert mentions.everyone is False
    assert mentions.roles is False
    assert mentions.replied_user is False
    assert [user.id for user in mentions.users] == pinged  # type: ignore[union-attr]


async def test_message_data_becomes_embeds_and_a_view_is_attached() -> None:
    interaction = MockInteraction()
    view = discord.ui.View()
    message = MessageData(embeds=(EmbedData(title="A paper", description="why"),))
    await respond.reply(interaction, message, ephemeral=False, view=view)
    kwargs = interaction.response.send_message.await_args.kwargs
    assert kwargs["content"] is None
    assert kwargs["view"] is view
    [embed] = kwargs["embeds"]
    assert (embed.title, embed.description) == ("A paper", "why")


def _with_catalog(locale: discord.Locale) -> MockInteraction:
    translator = CatalogTranslator()
    translator.add("tests", CATALOG)
    interaction = MockInteraction(locale=locale)
    interaction.client.tree.translator = translator
    return interaction


@pytest.mark.parametrize(
    ("locale", "english", "expected"),
    [
        (discord.Locale.chinese, "Next", "下一页"),
        (discord.Locale.taiwan_chinese, "Next", "下一頁"),
        (discord.Locale.american_english, "Next", "Next"),
        (discord.Locale.chinese, "Not in the catalog", "Not in the catalog"),
        (discord.Locale.chinese, HELLO, "你好 {name}"),  # unformatted: renderers fill it in
    ],
)
def test_translator_follows_the_users_locale(
    locale: discord.Locale, english: str, expected: str
) -> None:
    assert respond.translator(_with_catalog(locale))(english) == expected


@pytest.mark.parametrize(
    ("locale", "expected"),
    [(discord.Locale.chinese, "你好 <@1>"), (discord.Locale.british_english, "Hello <@1>")],
)
def test_localize_translates_then_fills_in(locale: discord.Locale, expected: str) -> None:
    assert respond.localize(_with_catalog(locale), HELLO, name="<@1>") == expected


@pytest.mark.parametrize("client", ["no translator", "no client"])
def test_english_without_a_catalog(client: str) -> None:
    interaction = MockInteraction(locale=discord.Locale.chinese)
    if client == "no client":
        interaction.client = None
    else:
        interaction.client.tree.translator = None
    assert respond.translator(interaction)("Next") == "Next"
    assert respond.localize(interaction, HELLO, name="x") == "Hello x"


BUDGET = 0.5  # seconds, for DEFER_AFTER_SECONDS
# A case that must not defer keeps most of the budget spare: CI runs the
# suite on every core beside other jobs, and a busy loop can stall 0.2 s
# (0.05 s of work against a 0.2 s budget once deferred there).


@pytest.mark.parametrize(
    ("age", "work", "already", "deferred"),
    [
        (0.0, 0.0, False, False),  # quick: answered directly, no "thinking"
        (0.0, 0.05, False, False),  # within the budget
        (0.0, 0.8, False, True),  # slower than the budget
        (0.4, 0.25, False, True),  # reached the bot late: only what is left counts
        (1.0, 0.01, False, True),  # the budget already spent: deferred at once
        (-10.0, 0.8, False, True),  # a clock behind Discord's does not lengthen it
        (0.0, 0.8, True, False),  # answered before the block: nothing to defer
    ],
)
async def test_thinking_when_slow_defers_once_the_budget_is_spent(
    monkeypatch: pytest.MonkeyPatch, age: float, work: float, already: bool, deferred: bool
) -> None:
    monkeypatch.setattr(respond, "DEFER_AFTER_SECONDS", BUDGET)
    interaction = MockInteraction(created_at=datetime.now(UTC) - timedelta(seconds=age))
    if already:
        await interaction.response.send_message("first")
    async with respond.thinking_when_slow(interaction):
        await asyncio.sleep(work)
    assert interaction.response.defer.await_count == int(deferred)
    if deferred:
        interaction.response.defer.assert_awaited_once_with(ephemeral=True, thinking=True)
    await respond.reply(interaction, "answer")  # never "already answered"


@pytest.mark.parametrize("ephemeral", [True, False])
async def test_thinking_when_slow_defers_as_the_answer_will_be_seen(
    monkeypatch: pytest.MonkeyPatch, ephemeral: bool
) -> None:
    monkeypatch.setattr(respond, "DEFER_AFTER_SECONDS", 0.0)
    interaction = MockInteraction()
    async with respond.thinking_when_slow(interaction, ephemeral=ephemeral):
        await asyncio.sleep(0.05)
    interaction.response.defer.assert_awaited_once_with(ephemeral=ephemeral, thinking=True)


@pytest.mark.parametrize("work", [0.0, 0.05])
async def test_now_defers_before_the_work_that_makes_the_answer_late(
    monkeypatch: pytest.MonkeyPatch, work: float
) -> None:
    """A block that knows its answer will be late (searches queued ahead, an
    index to build) says "thinking…" without waiting out the budget, and
    before that work holds the loop."""
    monkeypatch.setattr(respond, "DEFER_AFTER_SECONDS", 60.0)
    interaction = MockInteraction()
    async with respond.thinking_when_slow(interaction) as thinking:
        await asyncio.sleep(work)
        await thinking.now()
        interaction.response.defer.assert_awaited_once_with(ephemeral=True, thinking=True)
        await thinking.now()  # asking twice defers once
    interaction.response.defer.assert_awaited_once()
    await respond.reply(interaction, "answer")
    interaction.followup.send.assert_awaited_once()


async def test_hurry_defers_another_interaction_at_the_next_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A search arriving hurries the deferral of one still waiting for its
    answer: its work on the loop would otherwise delay that deferral."""
    monkeypatch.setattr(respond, "DEFER_AFTER_SECONDS", 60.0)
    waiting = MockInteraction()
    answer = asyncio.Event()

    async def waits_for_its_answer() -> None:
        async with respond.thinking_when_slow(waiting) as thinking:
            hurried.set_result(thinking)
            await answer.wait()

    hurried: asyncio.Future[respond.Deferral] = asyncio.get_running_loop().create_future()
    running = asyncio.ensure_future(waits_for_its_answer())
    (await hurried).hurry()
    await asyncio.sleep(0.01)
    waiting.response.defer.assert_awaited_once_with(ephemeral=True, thinking=True)
    answer.set()
    await running
    waiting.response.defer.assert_awaited_once()


async def test_a_deferral_being_sent_when_the_block_ends_is_finished_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cancelling it mid-request would leave Discord unsure whether it was
    acknowledged; the answer after the block must see it done."""
    monkeypatch.setattr(respond, "DEFER_AFTER_SECONDS", 0.0)
    interaction = MockInteraction()
    slow_network = asyncio.Event()

    async def defer(**_kwargs: Any) -> None:
        await slow_network.wait()

    interaction.response.defer.side_effect = defer
    interaction.response.is_done.side_effect = lambda: slow_network.is_set()
    ending = asyncio.ensure_future(_block_ended(interaction))
    await asyncio.sleep(0.05)
    assert not ending.done()  # waiting for the deferral in flight
    slow_network.set()
    await ending
    interaction.response.defer.assert_awaited_once()


async def _block_ended(interaction: MockInteraction) -> None:
    async with respond.thinking_when_slow(interaction):
        await asyncio.sleep(0.01)


async def test_a_failure_in_the_block_still_settles_the_deferral(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(respond, "DEFER_AFTER_SECONDS", BUDGET)
    interaction = MockInteraction()
    with pytest.raises(LookupError):
        async with respond.thinking_when_slow(interaction):
            raise LookupError("no such topic")
    await asyncio.sleep(BUDGET + 0.05)
    interaction.response.defer.assert_not_awaited()  # cancelled, not sent later


async def test_a_failed_deferral_is_the_commands_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As a deferral the command sent itself would be: the error handler
    reports it once (here: Discord unreachable)."""
    monkeypatch.setattr(respond, "DEFER_AFTER_SECONDS", 0.0)
    interaction = MockInteraction()
    interaction.response.defer.side_effect = ConnectionResetError("Discord is down")
    with pytest.raises(ConnectionResetError):
        async with respond.thinking_when_slow(interaction):
            await asyncio.sleep(0.05)


async def test_a_press_that_will_change_its_message_defers_quietly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(respond, "DEFER_AFTER_SECONDS", 0.0)
    interaction = MockInteraction()
    async with respond.thinking_when_slow(interaction, updating=True):
        await asyncio.sleep(0.05)
    interaction.response.defer.assert_awaited_once_with()  # no "thinking…" message
    await respond.update_message(interaction, content="changed", view=None)
    interaction.edit_original_response.assert_awaited_once_with(content="changed", view=None)
    interaction.response.edit_message.assert_not_awaited()


async def test_a_press_answered_in_time_changes_its_message_in_the_response() -> None:
    interaction = MockInteraction()
    async with respond.thinking_when_slow(interaction, updating=True):
        pass
    await respond.update_message(interaction, content="changed", view=None)
    interaction.response.edit_message.assert_awaited_once_with(content="changed", view=None)
    interaction.edit_original_response.assert_not_awaited()
