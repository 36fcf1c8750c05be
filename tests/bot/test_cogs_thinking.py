"""Every command and reader button whose answer waits on a service says
"thinking…" when that wait outlasts the budget, and answers directly when not.

A burst (a digest just posted, a server trying the bot at once) queues on the
database's one connection, so any awaited service call may come late; Discord
drops an interaction not acknowledged within 3 seconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from discord.ext import commands

from paperbot.bot import errors, respond
from paperbot.bot.cogs.about import About
from paperbot.bot.cogs.digest import Digest
from paperbot.bot.cogs.feedback import Feedback
from paperbot.bot.cogs.library import Saved
from paperbot.bot.cogs.mydata import MyData
from paperbot.bot.cogs.subscriptions import Subscriptions
from paperbot.bot.views.reader_actions import act
from paperbot.services.app import App
from tests.support.commands import invoke
from tests.support.discord_mocks import MockBot, MockInteraction, MockTextChannel

SLOW = 0.4  # a service call waiting behind a burst: past a 0.2 s budget
QUICK_BUDGET = 2.0  # a quick call stays well within this even on a busy machine


@dataclass(frozen=True)
class Case:
    name: str
    slowed: str  # "service.method" of App, or "cog.method"
    run: Callable[[commands.Cog, MockInteraction, int], Awaitable[None]]
    cog: type[commands.Cog] = Digest


def command(name: str, **options: Any) -> Callable[..., Awaitable[None]]:
    async def run(cog: commands.Cog, interaction: MockInteraction, _paper: int) -> None:
        given = dict(options)
        if given.get("channel"):
            given["channel"] = MockTextChannel(guild=interaction.guild)
        try:
            await invoke(getattr(cog, name), interaction, **given)
        except Exception as exc:  # noqa: BLE001 - as the tree hands it on
            await errors.handle_error(interaction, exc)

    return run


def press(action: Any) -> Callable[..., Awaitable[None]]:
    async def run(_cog: commands.Cog, interaction: MockInteraction, paper: int) -> None:
        await act(interaction, action, paper)

    return run


CASES = [
    Case("subscribe", "subscriptions.subscribe", command("subscribe", topic="RLHF"), Subscriptions),
    Case(
        "unsubscribe",
        "subscriptions.unsubscribe",
        command("unsubscribe", topic="RLHF"),
        Subscriptions,
    ),
    Case("subscriptions", "subscriptions.followed", command("subscriptions"), Subscriptions),
    Case("mute", "feedback.mute", command("mute", topic="RLHF"), Feedback),
    Case("unmute", "feedback.unmute", command("unmute", topic="RLHF"), Feedback),
    Case("feedback reset", "feedback.reset", command("reset"), Feedback),
    Case("mydata show", "user_data.counts", command("show"), MyData),
    Case("mydata export", "user_data.export", command("export"), MyData),
    Case("mydata delete", "user_data.counts", command("delete"), MyData),
    Case("saved list", "library.saved_papers", command("list_saved"), Saved),
    Case("saved export", "library.saved_papers", command("export"), Saved),
    Case("about", "cog.gather", command("about"), About),
    Case("digest setup", "digest.setup", command("setup", channel=True, time="09:00")),
    Case("digest off", "digest.off", command("off")),
    Case("digest now", "digest.get_settings", command("now")),
    Case("digest history", "archive.history", command("history")),
    Case("digest me", "personal.set_time", command("me", time="08:00")),
    Case("digest me off", "personal.off", command("me", time="off")),
    Case("👍", "feedback.vote", press("up")),
    Case("🔖", "library.toggle_saved", press("save")),
]


def _slow_down(target: Any, method: str) -> None:
    real = getattr(target, method)

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(SLOW)
        return await real(*args, **kwargs)

    setattr(target, method, slow)


@pytest.mark.parametrize("slow", [False, True], ids=["quick", "slow"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_a_slow_answer_says_thinking_first(
    loaded_app: App, monkeypatch: pytest.MonkeyPatch, case: Case, slow: bool
) -> None:
    monkeypatch.setattr(respond, "DEFER_AFTER_SECONDS", 0.2 if slow else QUICK_BUDGET)
    await loaded_app.topics.warm()  # matching prepared, as after start-up
    bot = MockBot(app=loaded_app)
    cog = case.cog(bot)
    owner, method = case.slowed.split(".")
    if slow:
        _slow_down(cog if owner == "cog" else getattr(loaded_app, owner), method)
    interaction = MockInteraction.admin(client=bot)
    paper = (await loaded_app.corpus.list_papers())[0].id
    await case.run(cog, interaction, paper)
    deferrals = interaction.response.defer.await_args_list
    assert [c.kwargs for c in deferrals] == (
        [{"ephemeral": True, "thinking": True}] if slow else []
    )
    answers = interaction.followup.send.await_args_list
    if not slow:
        answers = interaction.response.send_message.await_args_list
    assert len(answers) == 1, "answered once, after the deferral when there was one"
    assert answers[0].kwargs["ephemeral"] is True
