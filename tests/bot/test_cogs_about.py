"""`/about` rendering (pure) and data gathering (real SQLite)."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from paperbot.bot.cogs.about import (
    VENUES_SHOWN,
    ZH_CN,
    About,
    AboutInfo,
    DigestSchedule,
    render_about,
)
from paperbot.core import limits
from paperbot.core.models import VenueCount
from paperbot.services.corpus import CorpusService
from paperbot.storage.db import Database
from tests.support.discord_mocks import MockBot

NEXT = datetime(2026, 12, 1, 0, 0, tzinfo=UTC)
VENUES = (VenueCount("NeurIPS", 2025, 42), VenueCount("ICLR", 2026, 30))


def english(text: str) -> str:
    return text


def chinese(text: str) -> str:
    return ZH_CN.get(text, text)


def _info(**changes: object) -> AboutInfo:
    values: dict[str, object] = {
        "papers": 250,
        "venues": VENUES,
        "topics": 53,
        "digest": None,
        "in_guild": True,
    }
    return AboutInfo(**(values | changes))  # type: ignore[arg-type]


def _fields(info: AboutInfo, tr: object = english) -> dict[str, str]:
    [embed] = render_about(info, tr).embeds  # type: ignore[arg-type]
    return {f.name: f.value for f in embed.fields}


ON = DigestSchedule(1234, "08:00", "Asia/Shanghai", 5, True, NEXT)


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        (_info(), "Not set up: a server admin can run /digest setup."),
        (
            _info(digest=ON),
            f"5 papers daily at 08:00 (Asia/Shanghai) in <#1234>; next post <t:{int(NEXT.timestamp())}:R>.",
        ),
        (_info(digest=DigestSchedule(1234, "08:00", "UTC", 5, False, None)), "Turned off."),
        (_info(in_guild=False), "Digests are per server"),
    ],
)
def test_digest_field(info: AboutInfo, expected: str) -> None:
    assert expected in _fields(info)["This server's digest"]


def test_counts_and_venues() -> None:
    fields = _fields(_info())
    assert fields["Papers"] == "250"
    assert fields["Topics"] == "53"
    assert fields["Venues"].splitlines() == ["NeurIPS 2025: 42", "ICLR 2026: 30"]


def test_many_venues_are_capped_and_counted() -> None:
    venues = tuple(VenueCount(f"V{i}", 2000 + i, 1) for i in range(VENUES_SHOWN + 3))
    lines = _fields(_info(venues=venues))["Venues"].splitlines()
    assert len(lines) == VENUES_SHOWN + 1
    assert lines[-1] == "+3"


def test_chinese_labels_and_within_limits() -> None:
    message = render_about(_info(digest=ON), chinese)
    [embed] = message.embeds
    assert [f.name for f in embed.fields] == ["论文", "主题", "会议", "本服务器的每日摘要"]
    assert "每天 08:00" in embed.fields[3].value
    assert embed.size() <= limits.EMBED_TOTAL_MAX
    assert message.mention_user_ids == ()


async def test_gather_reads_the_store_and_the_digest_service(loaded_db: Database) -> None:
    settings = SimpleNamespace(
        channel_id=99,
        post_time=datetime(2026, 1, 1, 7, 30, tzinfo=UTC).timetz(),
        timezone="UTC",
        count=3,
        enabled=True,
    )

    class Digest:
        async def get_settings(self, guild_id: int) -> object:
            return settings if guild_id == 1 else None

        async def next_post(self, _settings: object, now: datetime) -> datetime:
            return now

    app = SimpleNamespace(
        corpus=CorpusService(loaded_db),
        topics=SimpleNamespace(vocabulary=[1, 2, 3]),
        digest=Digest(),
    )
    cog = About(MockBot(app=app))  # type: ignore[arg-type]
    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    info = await cog.gather(1, now)
    assert info.papers > 100
    assert info.topics == 3
    assert {v.venue for v in info.venues} >= {"NeurIPS", "ICML", "ICLR"}
    assert info.digest == DigestSchedule(99, "07:30", "UTC", 3, True, now)
    assert (await cog.gather(2, now)).digest is None
    assert (await cog.gather(None, now)).in_guild is False
