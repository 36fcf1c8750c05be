"""The generic paginator view, driven directly with spec_set mocks."""

from __future__ import annotations

import discord
import pytest

from paperbot.bot.views.paginator import NOT_YOURS, Paginator
from paperbot.core.render import EmbedData, MessageData
from tests.support.discord_mocks import MockInteraction, MockUser

OWNER = MockUser(name="owner")


def pages(n: int) -> list[MessageData]:
    return [
        MessageData(content=f"page {i + 1} @everyone", embeds=(EmbedData(title=f"P{i + 1}"),))
        for i in range(n)
    ]


def buttons(view: Paginator) -> dict[str, discord.ui.Button[Paginator]]:
    return {str(b.label): b for b in view.children if isinstance(b, discord.ui.Button)}


def assert_every_button_disabled(view: Paginator) -> None:
    found = buttons(view)
    assert set(found) == {"Previous", "Next", f"{view.index + 1}/{len(view.pages)}"}
    assert [label for label, button in found.items() if not button.disabled] == []


async def test_first_page_is_sent_with_buttons_and_no_pings() -> None:
    view = Paginator(pages(3), owner_id=OWNER.id)
    interaction = MockInteraction(user=OWNER)
    await view.start(interaction)
    kwargs = interaction.response.send_message.await_args.kwargs
    assert kwargs["content"] == "page 1 @everyone"
    assert kwargs["view"] is view
    assert kwargs["ephemeral"] is False
    mentions = kwargs["allowed_mentions"]
    assert mentions.everyone is False
    assert mentions.roles is False
    assert not mentions.users
    labels = buttons(view)
    assert labels["Previous"].disabled
    assert not labels["Next"].disabled
    assert labels["1/3"].disabled  # the counter is not a button to press


async def test_navigation_edits_in_place_and_disables_at_the_ends() -> None:
    view = Paginator(pages(3), owner_id=OWNER.id)
    for expected in (2, 3):
        press = MockInteraction.component("next", user=OWNER)
        await view.next.callback(press)
        kwargs = press.response.edit_message.await_args.kwargs
        assert kwargs["content"].startswith(f"page {expected}")
        assert kwargs["view"] is view
    assert view.next.disabled
    assert not view.previous.disabled
    assert view.counter.label == "3/3"
    # Pressing beyond the end (a stale client) stays on the last page.
    press = MockInteraction.component("next", user=OWNER)
    await view.next.callback(press)
    assert view.index == 2
    press = MockInteraction.component("prev", user=OWNER)
    await view.previous.callback(press)
    assert view.index == 1
    assert not view.next.disabled


async def test_only_the_owner_may_press() -> None:
    view = Paginator(pages(2), owner_id=OWNER.id)
    stranger = MockInteraction.component("next", user=MockUser(name="stranger"))
    assert await view.interaction_check(stranger) is False
    kwargs = stranger.response.send_message.await_args.kwargs
    assert kwargs["ephemeral"] is True
    assert stranger.response.send_message.await_args.args[0] == NOT_YOURS
    assert view.index == 0
    owner = MockInteraction.component("next", user=OWNER)
    assert await view.interaction_check(owner) is True
    assert not owner.response.is_done()


async def test_timeout_disables_every_button() -> None:
    view = Paginator(pages(2), owner_id=OWNER.id, timeout=60)
    interaction = MockInteraction(user=OWNER)
    await view.start(interaction)
    await view.on_timeout()
    assert_every_button_disabled(view)
    interaction.edit_original_response.assert_awaited_once_with(view=view)


async def test_timeout_after_a_deferred_start_edits_the_follow_up() -> None:
    view = Paginator(pages(2), owner_id=OWNER.id)
    interaction = MockInteraction(user=OWNER)
    await interaction.response.defer(thinking=True)
    await view.start(interaction, ephemeral=True)
    kwargs = interaction.followup.send.await_args.kwargs
    assert kwargs["wait"] is True
    assert kwargs["ephemeral"] is True
    assert kwargs["view"] is view
    message = interaction.followup.send.return_value
    await view.on_timeout()
    message.edit.assert_awaited_once_with(view=view)


async def test_timeout_survives_a_deleted_message() -> None:
    view = Paginator(pages(2), owner_id=OWNER.id)
    interaction = MockInteraction(user=OWNER)
    await view.start(interaction)
    response = discord.NotFound(
        type("R", (), {"status": 404, "reason": "Not Found"})(), {"code": 10008}
    )
    interaction.edit_original_response.side_effect = response
    await view.on_timeout()  # logged, not raised
    assert_every_button_disabled(view)


async def test_a_single_page_has_no_buttons() -> None:
    view = Paginator(pages(1), owner_id=OWNER.id)
    interaction = MockInteraction(user=OWNER)
    await view.start(interaction)
    assert "view" not in interaction.response.send_message.await_args.kwargs
    assert view.is_finished()


def test_needs_a_page() -> None:
    with pytest.raises(ValueError, match="at least one page"):
        Paginator([], owner_id=1)


def test_labels_are_localized() -> None:
    table = {"Previous": "上一页", "Next": "下一页"}
    view = Paginator(pages(2), owner_id=1, tr=lambda s: table.get(s, s))
    assert set(buttons(view)) == {"上一页", "下一页", "1/2"}
