"""The offers view (buttons to take something else instead), driven directly
with spec_set mocks."""

from __future__ import annotations

import discord

from paperbot.bot.views.offers import MAX_OFFERS, OffersView
from paperbot.core import limits
from paperbot.core.render import MessageData
from tests.support.discord_mocks import MockInteraction, MockUser

OWNER = MockUser(name="owner")
NOT_YOURS = "not yours"


def view_of(labels: list[str], chosen: list[int]) -> OffersView:
    async def choose(_interaction: discord.Interaction[discord.Client], index: int) -> str:
        chosen.append(index)
        return f"took {index} @everyone"

    return OffersView(owner_id=OWNER.id, labels=labels, on_choose=choose, not_yours_text=NOT_YOURS)


def buttons(view: OffersView) -> list[discord.ui.Button[OffersView]]:
    return [item for item in view.children if isinstance(item, discord.ui.Button)]


async def test_one_button_per_offer_within_discord_limits() -> None:
    view = view_of(["a" * 200, *(f"offer {i}" for i in range(MAX_OFFERS + 2))], [])
    found = buttons(view)
    assert len(found) == MAX_OFFERS
    assert all(len(str(b.label)) <= limits.BUTTON_LABEL_MAX for b in found)
    assert len({b.custom_id for b in found}) == MAX_OFFERS


async def test_a_press_takes_that_offer_once_and_removes_the_buttons() -> None:
    chosen: list[int] = []
    view = view_of(["first", "second"], chosen)
    press = MockInteraction.component("x", user=OWNER)
    await buttons(view)[1].callback(press)
    assert chosen == [1]
    kwargs = press.response.edit_message.await_args.kwargs
    assert kwargs["content"] == "took 1 @everyone"
    assert kwargs["view"] is None
    assert kwargs["allowed_mentions"].everyone is False
    assert view.is_finished()


async def test_only_the_owner_may_press() -> None:
    view = view_of(["first"], [])
    stranger = MockInteraction.component("x", user=MockUser(name="stranger"))
    assert await view.interaction_check(stranger) is False
    assert stranger.response.send_message.await_args.kwargs["ephemeral"] is True
    assert await view.interaction_check(MockInteraction.component("x", user=OWNER)) is True


async def test_timeout_removes_the_buttons_and_keeps_the_text() -> None:
    view = view_of(["first"], [])
    interaction = MockInteraction(user=OWNER)
    await view.start(interaction, MessageData(content="answer"))
    assert interaction.response.send_message.await_args.kwargs["view"] is view
    await view.on_timeout()
    interaction.edit_original_response.assert_awaited_once_with(view=None)


async def test_timeout_after_a_deferred_answer_edits_the_follow_up() -> None:
    view = view_of(["first"], [])
    interaction = MockInteraction(user=OWNER)
    await interaction.response.defer(thinking=True)
    await view.start(interaction, MessageData(content="answer"))
    message = interaction.followup.send.return_value
    await view.on_timeout()
    message.edit.assert_awaited_once_with(view=None)


async def test_timeout_survives_a_deleted_message() -> None:
    view = view_of(["first"], [])
    interaction = MockInteraction(user=OWNER)
    await view.start(interaction, MessageData(content="answer"))
    response = discord.NotFound(
        type("R", (), {"status": 404, "reason": "Not Found"})(), {"code": 10008}
    )
    interaction.edit_original_response.side_effect = response
    await view.on_timeout()  # logged, not raised
