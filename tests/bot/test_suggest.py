"""`bot.suggest.Suggestions`: the newest keystroke's lookup, answered in time."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from paperbot.bot import suggest
from paperbot.bot.suggest import Suggestions
from tests.support.discord_mocks import MockInteraction, MockMember


class Lookup:
    """A lookup that finishes when told to, and records how it ended."""

    def __init__(self, choices: list[str]) -> None:
        self.choices = choices
        self.release = asyncio.Event()
        self.cancelled = False

    async def run(self) -> list[str]:
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return self.choices


async def test_a_quick_lookup_gives_its_choices() -> None:
    lookup = Lookup(["a"])
    lookup.release.set()
    assert await Suggestions().latest(MockInteraction(), lookup.run()) == ["a"]


@pytest.mark.parametrize(("same_user", "older_answer"), [(True, None), (False, ["old"])])
async def test_a_newer_keystroke_cancels_the_same_typists_older_lookup(
    same_user: bool, older_answer: list[str] | None
) -> None:
    suggestions = Suggestions()
    first = MockInteraction()
    second = MockInteraction(user=first.user if same_user else MockMember(), command=first.command)
    older, newer = Lookup(["old"]), Lookup(["new"])
    answering_older = asyncio.ensure_future(suggestions.latest(first, older.run()))
    await asyncio.sleep(0.01)
    answering_newer = asyncio.ensure_future(suggestions.latest(second, newer.run()))
    await asyncio.sleep(0.01)
    assert answering_older.done() is same_user  # no wait for a search nobody sees
    older.release.set()
    newer.release.set()
    assert await answering_older == older_answer
    assert older.cancelled is same_user
    assert await answering_newer == ["new"]


@pytest.mark.parametrize(
    ("age", "work", "answered"), [(0.0, 0.05, True), (0.0, 0.5, False), (0.25, 0.1, False)]
)
async def test_a_lookup_past_the_deadline_is_given_up(
    monkeypatch: pytest.MonkeyPatch, age: float, work: float, answered: bool
) -> None:
    monkeypatch.setattr(suggest, "ANSWER_WITHIN_SECONDS", 0.3)
    interaction = MockInteraction(created_at=datetime.now(UTC) - timedelta(seconds=age))
    lookup = Lookup(["late"])
    asyncio.get_running_loop().call_later(work, lookup.release.set)
    got = await Suggestions().latest(interaction, lookup.run())
    assert got == (["late"] if answered else None)
    await asyncio.sleep(0)
    assert lookup.cancelled is not answered  # no search left running for nothing


async def test_a_failing_lookup_fails_the_autocomplete() -> None:
    async def broken() -> list[str]:
        raise LookupError("database gone")

    with pytest.raises(LookupError):
        await Suggestions().latest(MockInteraction(), broken())
