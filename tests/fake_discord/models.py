"""The fake Discord's world: users, guilds, channels, and their wire payloads."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import discord

# One definition of who may do what, shared with the spec_set mocks.
from tests.support.discord_mocks import ADMIN_PERMISSIONS as ADMIN_PERMISSIONS
from tests.support.discord_mocks import BOT_PERMISSIONS as BOT_PERMISSIONS
from tests.support.discord_mocks import MEMBER_PERMISSIONS as MEMBER_PERMISSIONS

_LAST_ID = [0]


def new_id() -> int:
    """A fresh snowflake dated now, as Discord's are: the bot reads an
    interaction's creation time from its id (its 3 s to answer run from then)."""
    now = discord.utils.time_snowflake(datetime.now(UTC))
    _LAST_ID[0] = max(_LAST_ID[0] + 1, now)
    return _LAST_ID[0]


def timestamp() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class FakeUser:
    id: int = field(default_factory=new_id)
    name: str = "reader"
    bot: bool = False
    #: Guild-wide permissions when this user acts in a guild.
    permissions: discord.Permissions = field(default_factory=lambda: MEMBER_PERMISSIONS)

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.name,
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
        }

    def member_payload(self, *, permissions: discord.Permissions | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "user": self.payload(),
            "roles": [],
            "joined_at": "2026-01-01T00:00:00+00:00",
            "nick": None,
            "avatar": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "premium_since": None,
            "communication_disabled_until": None,
            "flags": 0,
        }
        if permissions is not None:
            data["permissions"] = str(permissions.value)
        return data


@dataclass
class FakeChannel:
    guild_id: int
    id: int = field(default_factory=new_id)
    name: str = "papers"
    type: int = 0
    #: The bot's permissions in this channel (Discord's `app_permissions`).
    bot_permissions: discord.Permissions = field(default_factory=lambda: BOT_PERMISSIONS)

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "guild_id": str(self.guild_id),
            "name": self.name,
            "type": self.type,
            "position": 0,
            "permission_overwrites": [],
            "topic": None,
            "nsfw": False,
            "parent_id": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }

    def resolved_payload(self, permissions: discord.Permissions) -> dict[str, Any]:
        """The partial channel an option of type CHANNEL resolves to."""
        return {
            "id": str(self.id),
            "name": self.name,
            "type": self.type,
            "permissions": str(permissions.value),
            "parent_id": None,
            "position": 0,
            "nsfw": False,
            "flags": 0,
        }


@dataclass
class FakeGuild:
    id: int = field(default_factory=new_id)
    name: str = "ML reading group"
    locale: str = "en-US"
    owner_id: int = field(default_factory=new_id)
    channels: list[FakeChannel] = field(default_factory=list)

    def add_channel(self, name: str = "papers", **kwargs: Any) -> FakeChannel:
        channel = FakeChannel(guild_id=self.id, name=name, **kwargs)
        self.channels.append(channel)
        return channel

    def payload(self, bot: FakeUser) -> dict[str, Any]:
        """GUILD_CREATE: the bot's own member carries its role's permissions."""
        bot_role_id = self.id + 1
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "features": [],
            "mfa_level": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "preferred_locale": self.locale,
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "unavailable": False,
            "large": False,
            "member_count": 2,
            "joined_at": "2026-01-01T00:00:00+00:00",
            "roles": [
                _role(self.id, "@everyone", discord.Permissions(view_channel=True)),
                _role(bot_role_id, "paperbot", BOT_PERMISSIONS, managed=True),
            ],
            "emojis": [],
            "stickers": [],
            "channels": [c.payload() for c in self.channels],
            "threads": [],
            "members": [{**bot.member_payload(), "roles": [str(bot_role_id)]}],
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }


def _role(
    role_id: int, name: str, permissions: discord.Permissions, *, managed: bool = False
) -> dict[str, Any]:
    return {
        "id": str(role_id),
        "name": name,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "icon": None,
        "unicode_emoji": None,
        "position": 1 if managed else 0,
        "permissions": str(permissions.value),
        "managed": managed,
        "mentionable": False,
        "flags": 0,
    }
