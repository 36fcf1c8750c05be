"""A fake Discord (REST + gateway on 127.0.0.1) for end-to-end tests of the real discord.py.

See `server.FakeDiscord`; fixtures using it live in `tests/e2e/conftest.py`.
"""

from tests.fake_discord.models import (
    ADMIN_PERMISSIONS,
    BOT_PERMISSIONS,
    MEMBER_PERMISSIONS,
    FakeChannel,
    FakeGuild,
    FakeUser,
)
from tests.fake_discord.server import (
    CommandUnavailable,
    FakeDiscord,
    InteractionResult,
    InteractionTimeout,
    RecordedRequest,
    button,
    message_text,
)

__all__ = [
    "ADMIN_PERMISSIONS",
    "BOT_PERMISSIONS",
    "MEMBER_PERMISSIONS",
    "CommandUnavailable",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeUser",
    "InteractionResult",
    "InteractionTimeout",
    "RecordedRequest",
    "button",
    "message_text",
]
