"""Mocks of discord.py objects for cog unit tests (python-discord/bot style).

Every mock is a `MagicMock` with `spec_set` taken from the real discord.py
class, so reading or setting an attribute the real object lacks fails the
test. Coroutine methods of the real class become `AsyncMock`s whose calls
are checked against the real signature: `send_message(ephemral=True)` raises
`TypeError` just as discord.py would.

Typical use in a cog test::

    bot = MockBot(app=app)                       # a real App (tmp_path database)
    interaction = MockInteraction(client=bot)    # a plain member in a guild
    await cog.search.callback(cog, interaction, query="diffusion")
    kwargs = interaction.response.send_message.await_args.kwargs
    assert kwargs["ephemeral"] is True

`MockInteraction.admin()` gives an interaction from a member with
Administrator; `MockInteraction.in_dm()` one from a direct message.
`interaction.response.is_done()` turns True once the mock was answered
(`send_message`, `defer`, `edit_message`, `send_modal`, `autocomplete`), like
the real `InteractionResponse`.
"""

from __future__ import annotations

import inspect
import itertools
import unittest.mock
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import discord
from discord.ext import commands

# Snowflakes that look like Discord's (2026 timestamps), unique per test run.
_SNOWFLAKES: Iterator[int] = itertools.count(
    discord.utils.time_snowflake(datetime(2026, 1, 1, tzinfo=UTC))
)

#: Permissions of an ordinary member in a guild channel.
MEMBER_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    embed_links=True,
    read_message_history=True,
    use_application_commands=True,
)
#: Permissions of a server administrator.
ADMIN_PERMISSIONS = discord.Permissions.all()
#: What the bot is granted by the invite URL in the README.
BOT_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    embed_links=True,
    read_message_history=True,
)


def snowflake() -> int:
    """A fresh Discord-looking id."""
    return next(_SNOWFLAKES)


def _signature_checker(function: Callable[..., Any]) -> Callable[..., None]:
    """A `_mock_check_sig` replacement enforcing the real method's signature."""
    signature = inspect.signature(function)
    parameters = list(signature.parameters.values())[1:]  # drop self
    unbound = signature.replace(parameters=parameters)

    def check(_mock: Any, /, *args: Any, **kwargs: Any) -> None:
        unbound.bind(*args, **kwargs)

    return check


class CustomMockMixin:
    """Spec'd mocks whose children are plain mocks, async where the real method is.

    Without this, a child of a `MockInteraction` would itself be a
    `MockInteraction` (MagicMock makes children of its own type).
    """

    spec_set: Any = None
    child_mock_type: type[unittest.mock.NonCallableMock] = unittest.mock.MagicMock

    def __init__(self, **kwargs: Any) -> None:
        # `name` means the mock's own name to Mock; discord objects have a `name` attribute.
        name = kwargs.pop("name", None)
        super().__init__(spec_set=self.spec_set, **kwargs)  # type: ignore[call-arg]
        if name is not None:
            self.name = name

    def _get_child_mock(self, **kwargs: Any) -> unittest.mock.NonCallableMock:
        attribute = kwargs.get("_new_name", "")
        spec_class = self.spec_set if isinstance(self.spec_set, type) else type(self.spec_set)
        real = inspect.getattr_static(spec_class, attribute, None) if attribute else None
        if inspect.iscoroutinefunction(real):
            child = unittest.mock.AsyncMock(**kwargs)
            # Each mock has its own class, so this binds the check to this child only.
            type(child)._mock_check_sig = _signature_checker(real)  # type: ignore[method-assign]
            return child
        if attribute in unittest.mock._async_method_magics:  # type: ignore[attr-defined]
            return unittest.mock.AsyncMock(**kwargs)
        return self.child_mock_type(**kwargs)


class MockRole(CustomMockMixin, unittest.mock.MagicMock):
    """A `discord.Role`."""

    spec_set = discord.Role

    def __init__(self, **kwargs: Any) -> None:
        defaults: dict[str, Any] = {"id": snowflake(), "name": "role", "position": 1}
        super().__init__(**(defaults | kwargs))
        self.mention = f"<@&{self.id}>"


class MockUser(CustomMockMixin, unittest.mock.MagicMock):
    """A `discord.User` (someone reached outside a guild)."""

    spec_set = discord.User

    def __init__(self, **kwargs: Any) -> None:
        defaults: dict[str, Any] = {"id": snowflake(), "name": "reader", "bot": False}
        super().__init__(**(defaults | kwargs))
        self.mention = f"<@{self.id}>"
        if "display_name" not in kwargs:
            self.display_name = self.name
        if "global_name" not in kwargs:
            self.global_name = None


class MockGuild(CustomMockMixin, unittest.mock.MagicMock):
    """A `discord.Guild`; `guild.me` is the bot's member."""

    spec_set = discord.Guild

    def __init__(self, **kwargs: Any) -> None:
        defaults: dict[str, Any] = {
            "id": snowflake(),
            "name": "ML reading group",
            "preferred_locale": discord.Locale.american_english,
            "unavailable": False,
        }
        super().__init__(**(defaults | kwargs))
        if "me" not in kwargs:
            self.me = MockMember(guild=self, bot=True, name="paperbot", permissions=BOT_PERMISSIONS)
        if "owner_id" not in kwargs:
            self.owner_id = snowflake()


class MockMember(CustomMockMixin, unittest.mock.MagicMock):
    """A `discord.Member`. `permissions=` sets `guild_permissions` (a real `Permissions`)."""

    spec_set = discord.Member

    def __init__(self, *, permissions: discord.Permissions | None = None, **kwargs: Any) -> None:
        defaults: dict[str, Any] = {"id": snowflake(), "name": "reader", "bot": False}
        super().__init__(**(defaults | kwargs))
        self.mention = f"<@{self.id}>"
        self.guild_permissions = permissions if permissions is not None else MEMBER_PERMISSIONS
        if "display_name" not in kwargs:
            self.display_name = self.name
        if "global_name" not in kwargs:
            self.global_name = None
        if "guild" not in kwargs:
            self.guild = MockGuild(me=None)
        if "roles" not in kwargs:
            self.roles = []


class MockMessage(CustomMockMixin, unittest.mock.MagicMock):
    """A `discord.Message` (also stands in for `InteractionMessage`/`WebhookMessage`)."""

    spec_set = discord.Message

    def __init__(self, **kwargs: Any) -> None:
        defaults: dict[str, Any] = {
            "id": snowflake(),
            "content": "",
            "embeds": [],
            "components": [],
            "flags": discord.MessageFlags(),
        }
        super().__init__(**(defaults | kwargs))


class MockTextChannel(CustomMockMixin, unittest.mock.MagicMock):
    """A `discord.TextChannel`; `channel.send` returns a `MockMessage`.

    `permissions_for(anyone)` returns `bot_permissions` for the guild's bot
    member and `member_permissions` for everyone else (both real `Permissions`).
    """

    spec_set = discord.TextChannel

    def __init__(
        self,
        *,
        bot_permissions: discord.Permissions = BOT_PERMISSIONS,
        member_permissions: discord.Permissions = MEMBER_PERMISSIONS,
        **kwargs: Any,
    ) -> None:
        defaults: dict[str, Any] = {
            "id": snowflake(),
            "name": "papers",
            "type": discord.ChannelType.text,
            "nsfw": False,
        }
        super().__init__(**(defaults | kwargs))
        self.mention = f"<#{self.id}>"
        if "guild" not in kwargs:
            self.guild = MockGuild()
        self.send.return_value = MockMessage(channel=self)

        def permissions_for(target: Any, /) -> discord.Permissions:
            me = getattr(self.guild, "me", None)
            if me is not None and getattr(target, "id", None) == me.id:
                return bot_permissions
            return member_permissions

        self.permissions_for.side_effect = permissions_for


class MockWebhook(CustomMockMixin, unittest.mock.MagicMock):
    """A `discord.Webhook`, as `interaction.followup`; `send` returns a `MockMessage`."""

    spec_set = discord.Webhook

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**({"id": snowflake()} | kwargs))
        self.send.return_value = MockMessage()


class MockInteractionResponse(CustomMockMixin, unittest.mock.MagicMock):
    """A `discord.InteractionResponse` whose `is_done()` tracks the calls made."""

    spec_set = discord.InteractionResponse

    _ANSWERS = ("send_message", "defer", "edit_message", "send_modal", "autocomplete", "pong")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        answered: list[str] = []
        interaction_placeholder: Any = unittest.mock.MagicMock(spec=discord.Interaction)

        def is_done() -> bool:
            return bool(answered)

        def mark(method: str) -> Callable[..., Any]:
            def side_effect(*_args: Any, **_kwargs: Any) -> Any:
                if answered:
                    # What discord.py raises when an interaction is answered twice.
                    raise discord.InteractionResponded(interaction_placeholder)
                answered.append(method)
                return unittest.mock.DEFAULT

            return side_effect

        self.is_done.side_effect = is_done
        for method in self._ANSWERS:
            getattr(self, method).side_effect = mark(method)

    @property
    def answered_with(self) -> unittest.mock.AsyncMock | None:
        """The mocked method that answered the interaction, if any."""
        for method in self._ANSWERS:
            mocked = getattr(self, method)
            if mocked.await_count:
                return mocked  # type: ignore[no-any-return]
        return None


class MockBot(CustomMockMixin, unittest.mock.MagicMock):
    """A `PaperBot` (spec from a real instance, so `bot.app` exists).

    Pass `app=` a real `App` to exercise the services with a real database.
    """

    spec_set: Any = None

    def __init__(self, **kwargs: Any) -> None:
        type(self).spec_set = _bot_instance()
        defaults: dict[str, Any] = {"app": unittest.mock.MagicMock()}
        super().__init__(**(defaults | kwargs))
        self.user = MockUser(bot=True, name="paperbot")
        self.is_closed.return_value = False


_BOT_INSTANCE: list[Any] = []


def _bot_instance() -> commands.Bot:
    # Imported lazily: the bot package may be mid-edit while other tests run.
    if not _BOT_INSTANCE:
        from paperbot.bot.client import PaperBot

        _BOT_INSTANCE.append(PaperBot(unittest.mock.MagicMock()))
    bot: commands.Bot = _BOT_INSTANCE[0]
    return bot


class MockInteraction(CustomMockMixin, unittest.mock.MagicMock):
    """A `discord.Interaction` for a slash command, by a plain member in a guild.

    `permissions` (the user's, in the channel) and `app_permissions` (the
    bot's) are real `discord.Permissions`. Pass `user=`, `guild=`,
    `channel=`, `client=` or any other Interaction attribute to override.
    """

    spec_set = discord.Interaction

    def __init__(self, **kwargs: Any) -> None:
        guild = kwargs.pop("guild", None) if "guild" in kwargs else MockGuild()
        channel = kwargs.pop("channel", None) if "channel" in kwargs else None
        if channel is None and guild is not None:
            channel = MockTextChannel(guild=guild)
        user = kwargs.pop("user", None)
        if user is None:
            user = MockMember(guild=guild) if guild is not None else MockUser()
        permissions = kwargs.pop("permissions", None)
        if permissions is None:
            permissions = getattr(user, "guild_permissions", MEMBER_PERMISSIONS)
        defaults: dict[str, Any] = {
            "id": snowflake(),
            "application_id": 1,
            "type": discord.InteractionType.application_command,
            "token": "interaction-token",
            "version": 1,
            "locale": discord.Locale.american_english,
            "guild_locale": guild.preferred_locale if guild is not None else None,
            "guild": guild,
            "guild_id": guild.id if guild is not None else None,
            "channel": channel,
            "channel_id": channel.id if channel is not None else None,
            "user": user,
            "permissions": permissions,
            "app_permissions": BOT_PERMISSIONS,
            "client": MockBot(),
            "response": MockInteractionResponse(),
            "followup": MockWebhook(),
            "message": None,
            "extras": {},
            "command_failed": False,
            "created_at": datetime.now(UTC),
            "data": {},
        }
        super().__init__(**(defaults | kwargs))
        self.original_response.return_value = MockMessage()
        self.edit_original_response.return_value = MockMessage()

    @classmethod
    def admin(cls, **kwargs: Any) -> MockInteraction:
        """An interaction from a member with Administrator in the guild."""
        guild = kwargs.pop("guild", None) or MockGuild()
        user = MockMember(guild=guild, permissions=ADMIN_PERMISSIONS, name="admin")
        return cls(guild=guild, user=user, **kwargs)

    @classmethod
    def in_dm(cls, **kwargs: Any) -> MockInteraction:
        """An interaction from a direct message: no guild, a plain `User`."""
        return cls(guild=None, channel=None, **kwargs)

    @classmethod
    def component(cls, custom_id: str, **kwargs: Any) -> MockInteraction:
        """A button press (type 3) with `data.custom_id`, on a `MockMessage`."""
        kwargs.setdefault("message", MockMessage())
        return cls(
            type=discord.InteractionType.component,
            data={"custom_id": custom_id, "component_type": 2},
            custom_id=custom_id,
            **kwargs,
        )
