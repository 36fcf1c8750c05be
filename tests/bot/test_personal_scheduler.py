"""bot.personal_scheduler: Discord errors on opening or sending a DM become
the right delivery errors (50007 = closed DMs, switched off, never retried)."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from paperbot.bot.personal_scheduler import DiscordDmTransport, dm_error
from paperbot.bot.scheduler import delivery_error
from paperbot.core.render import MessageData
from paperbot.services.digest import DeliveryError
from paperbot.services.personal_digest import DmsClosed
from tests.support.digest import FakeDiscord


def http_error(cls: type[discord.HTTPException], status: int, code: int) -> discord.HTTPException:
    response = SimpleNamespace(status=status, reason="x")
    return cls(response, {"code": code, "message": "nope"})


@pytest.mark.parametrize(
    ("error", "closed", "permanent"),
    [
        (http_error(discord.Forbidden, 403, 50007), True, True),
        (http_error(discord.HTTPException, 400, 50007), True, True),
        (http_error(discord.Forbidden, 403, 50013), False, True),
        (http_error(discord.HTTPException, 400, 50035), False, True),
        (http_error(discord.HTTPException, 429, 0), False, False),
        (http_error(discord.DiscordServerError, 503, 0), False, False),
        (TimeoutError(), False, False),
    ],
)
def test_opening_a_dm(error: BaseException, closed: bool, permanent: bool) -> None:
    mapped = dm_error(error)
    assert isinstance(mapped, DmsClosed) is closed
    assert mapped.permanent is permanent


class Channels(FakeDiscord):
    """The journal-less fake Discord, whose send fails like discord.py's
    transport does: a `DeliveryError` caused by the Discord error."""

    def __init__(self, error: discord.HTTPException) -> None:
        super().__init__(now=datetime.now(UTC))
        self.error = error
        self.tried: list[tuple[int, MessageData, str]] = []

    async def send(self, channel_id: int, message: MessageData, nonce: str) -> int:
        self.tried.append((channel_id, message, nonce))
        raise delivery_error(self.error, channel_id) from self.error


@pytest.mark.parametrize(
    ("code", "closed"),
    [(50007, True), (50013, False)],
)
async def test_sending_a_dm(code: int, closed: bool) -> None:
    bot: Any = SimpleNamespace()
    channels = Channels(http_error(discord.Forbidden, 403, code))
    transport = DiscordDmTransport(bot, channels)
    with pytest.raises(DeliveryError) as raised:
        await transport.send(1, MessageData(content="x"), "1")
    assert isinstance(raised.value, DmsClosed) is closed
    assert raised.value.permanent
    assert len(channels.tried) == 1
    assert await transport.history(1, datetime.now(UTC), 5) == []
