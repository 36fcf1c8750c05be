"""Users acting on the bot: slash commands, autocomplete, button clicks (INTERACTION_CREATE)."""

from __future__ import annotations

from typing import Any

import discord

from tests.fake_discord.commands import command_data
from tests.fake_discord.constants import (
    CallbackType,
    ChannelType,
    ComponentType,
    InteractionContext,
    InteractionType,
)
from tests.fake_discord.gateway import GatewayMixin
from tests.fake_discord.models import FakeChannel, FakeGuild, FakeUser, new_id
from tests.fake_discord.results import InteractionResult, custom_ids


class InteractionsMixin(GatewayMixin):
    """Builds interactions as Discord would and waits for the bot's answer."""

    async def slash(
        self,
        command: str,
        /,
        *,
        user: FakeUser,
        guild: FakeGuild | None = None,
        channel: FakeChannel | None = None,
        locale: str = "en-US",
        wait: bool = True,
        options: dict[str, Any] | None = None,
        **more_options: Any,
    ) -> InteractionResult:
        """Invoke `/command` (or `"group sub"`) with options by name, as `user`.

        `channel` is where the command is typed; pass options whose names clash
        with these keywords (`channel`, `user`, `guild`, `locale`, `wait`) in
        `options={...}`.

        Raises `CommandUnavailable` when Discord would not offer the command
        (not synced here, hidden by `default_member_permissions`, not in DMs),
        and `ValueError` for options Discord's client would refuse to send.
        """
        values = {**(options or {}), **more_options}
        data = self._command_data(command, guild, user, values, focused=None)
        return await self._interact(
            InteractionType.APPLICATION_COMMAND, data, user, guild, channel, locale, wait=wait
        )

    async def autocomplete(
        self,
        command: str,
        /,
        *,
        focused: str,
        user: FakeUser,
        guild: FakeGuild | None = None,
        channel: FakeChannel | None = None,
        locale: str = "en-US",
        options: dict[str, Any] | None = None,
        **more_options: Any,
    ) -> list[dict[str, Any]]:
        """What the bot suggests while `user` types into option `focused`."""
        values = {**(options or {}), **more_options}
        result = await self.keystroke(
            command,
            focused=focused,
            user=user,
            guild=guild,
            channel=channel,
            locale=locale,
            options=values,
            wait=True,
        )
        if result.callback_type != CallbackType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT:
            raise AssertionError(f"autocomplete answered with callback {result.callback_type}")
        return result.choices

    async def keystroke(
        self,
        command: str,
        /,
        *,
        focused: str,
        user: FakeUser,
        guild: FakeGuild | None = None,
        channel: FakeChannel | None = None,
        locale: str = "en-US",
        options: dict[str, Any] | None = None,
        wait: bool = False,
    ) -> InteractionResult:
        """One autocomplete interaction, answered or not yet (`wait=False`:
        a burst of typing sends many before any is answered)."""
        data = self._command_data(command, guild, user, options or {}, focused=focused)
        return await self._interact(
            InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE,
            data,
            user,
            guild,
            channel,
            locale,
            wait=wait,
        )

    async def click(
        self,
        message: dict[str, Any],
        custom_id: str,
        *,
        user: FakeUser,
        guild: FakeGuild | None = None,
        channel: FakeChannel | None = None,
        locale: str = "en-US",
        values: list[str] | None = None,
    ) -> InteractionResult:
        """Press the button `custom_id` on a message the bot sent, or choose
        `values` in its select menu `custom_id`."""
        if custom_id not in custom_ids(message):
            raise ValueError(f"no button {custom_id!r} on that message: {custom_ids(message)}")
        button = next(
            child
            for row in message["components"]
            for child in row["components"]
            if child.get("custom_id") == custom_id
        )
        if button.get("disabled"):
            raise ValueError(f"button {custom_id!r} is disabled: Discord would not send the click")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": button["type"]}
        if button["type"] == ComponentType.STRING_SELECT:
            offered = {option["value"] for option in button.get("options", [])}
            if not values or not set(values) <= offered:
                raise ValueError(f"choose values among {sorted(offered)} in {custom_id!r}")
            data["values"] = values
        return await self._interact(
            InteractionType.MESSAGE_COMPONENT,
            data,
            user,
            guild,
            channel,
            locale,
            wait=True,
            message=self.messages[int(message["id"])],
        )

    async def _interact(
        self,
        kind: InteractionType,
        data: dict[str, Any],
        user: FakeUser,
        guild: FakeGuild | None,
        channel: FakeChannel | None,
        locale: str,
        *,
        wait: bool,
        message: dict[str, Any] | None = None,
    ) -> InteractionResult:
        payload = self._interaction_payload(kind, data, user, guild, channel, locale, message)
        result = InteractionResult(self, payload)
        self.interactions[result.token] = result
        await self.dispatch("INTERACTION_CREATE", payload)
        if wait:
            await self.wait_answered(result)
        return result

    async def wait_answered(self, result: InteractionResult, within: float = 10.0) -> None:
        """Wait for the callback and, when deferred, for the first follow-up or edit."""
        await result.wait_until(lambda: result.callback is not None, within)
        if result.deferred:  # "thinking…", or a press whose message will change
            await result.wait_until(
                lambda: any(
                    r.path.startswith("/webhooks/") and 200 <= r.status < 300
                    for r in result.requests
                ),
                within,
            )
        await result.settle()

    def _interaction_payload(
        self,
        kind: InteractionType,
        data: dict[str, Any],
        user: FakeUser,
        guild: FakeGuild | None,
        channel: FakeChannel | None,
        locale: str,
        message: dict[str, Any] | None,
    ) -> dict[str, Any]:
        interaction_id = new_id()
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": kind,
            "data": data,
            "token": f"interaction-token-{interaction_id}",
            "version": 1,
            "locale": locale,
            "attachment_size_limit": 10 * 1024 * 1024,
            "entitlements": [],
            "entitlement_sku_ids": [],
        }
        if message is not None:
            payload["message"] = message
        if guild is not None:
            channel = channel or guild.channels[0]
            permissions = user.permissions
            payload |= {
                "guild_id": str(guild.id),
                "guild": {"id": str(guild.id), "locale": guild.locale, "features": []},
                "guild_locale": guild.locale,
                "channel_id": str(channel.id),
                "channel": channel.payload(),
                "member": user.member_payload(permissions=permissions),
                "app_permissions": str(channel.bot_permissions.value),
                "authorizing_integration_owners": {"0": str(guild.id)},
                "context": InteractionContext.GUILD,
            }
        else:
            dm_id = new_id()
            payload |= {
                "user": user.payload(),
                "channel_id": str(dm_id),
                "channel": {
                    "id": str(dm_id),
                    "type": ChannelType.DM,
                    "last_message_id": None,
                    "flags": 0,
                    "recipients": [user.payload()],
                },
                "app_permissions": str(discord.Permissions(view_channel=True).value),
                "authorizing_integration_owners": {"0": str(user.id)},
                "context": InteractionContext.BOT_DM,
            }
        return payload

    def _command_data(
        self,
        command: str,
        guild: FakeGuild | None,
        user: FakeUser,
        options: dict[str, Any],
        *,
        focused: str | None,
    ) -> dict[str, Any]:
        return command_data(
            self.commands_for(guild), command, guild, user, options, focused=focused
        )
