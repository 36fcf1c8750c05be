"""The personal daily digest by DM, as plain data: its records, its nonce,
its header and its message. Pure: no discord, no SQL, no clock reads.

A reader has one personal digest whatever the number of servers they share
with the bot: their topics are the union of what they follow in every
server (a topic followed in two servers counts once), and one DM goes out
per reader-local day.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime

from paperbot.core.digest import DigestPlan
from paperbot.core.digest_render import render_digest
from paperbot.core.models import DailySchedule, Paper, PostRecord
from paperbot.core.render import MessageData

_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_WEEKDAYS_ZH = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")


@dataclass(frozen=True, slots=True)
class PersonalSettings(DailySchedule):
    """One reader's personal digest schedule: where they set it, and why the
    bot switched it off until they are told."""

    user_id: int
    set_in_guild: int | None
    notice: str | None
    notice_at: datetime | None


@dataclass(frozen=True, slots=True)
class PersonalPost(PostRecord):
    """One personal DM (delivered like a server post); its DM channel is
    known once opened."""

    user_id: int
    channel_id: int | None


def personal_nonce(user_id: int, day: date) -> str:
    """A deterministic nonce for a reader's DM on a local date.

    Distinct from every server nonce (another prefix in the hash), at most
    19 decimal digits: within Discord's 25 characters.
    """
    digest = hashlib.blake2b(f"paperbot-dm:{user_id}:{day.isoformat()}".encode(), digest_size=8)
    return str(int.from_bytes(digest.digest(), "big") >> 1)


def personal_header(day: date) -> str:
    """The first line of a DM; it also finds the DM again in the DM channel's history."""
    return (
        f"📬 **Your paper digest · 你的每日论文 — {_WEEKDAYS[day.weekday()]}"
        f" {_WEEKDAYS_ZH[day.weekday()]} {day.isoformat()}**"
    )


def render_personal(plan: DigestPlan, papers: Mapping[int, Paper], day: date) -> MessageData:
    """The DM: the server digest's rendering for one reader, pinging nobody
    (a DM needs no mention, and the picks name no subscribers)."""
    quiet = dataclasses.replace(
        plan, picks=tuple(dataclasses.replace(p, subscribers=()) for p in plan.picks)
    )
    message = render_digest(quiet, papers, personal_header(day))
    return MessageData(content=message.content, embeds=message.embeds)
