"""The personal digest's pure parts: nonce, header, and a DM that pings nobody."""

from __future__ import annotations

from datetime import date

import pytest

from paperbot.core.digest import DigestPlan, Pick
from paperbot.core.models import Paper
from paperbot.core.personal import personal_header, personal_nonce, render_personal
from paperbot.core.schedule import NONCE_MAX, digest_nonce

DAY = date(2026, 11, 30)


@pytest.mark.parametrize(
    ("user", "day"),
    [(1, DAY), (2**63 - 1, DAY), (10**17 + 7, date(2027, 1, 1))],
)
def test_nonce_is_stable_short_and_not_a_server_nonce(user: int, day: date) -> None:
    nonce = personal_nonce(user, day)
    assert nonce == personal_nonce(user, day)
    assert len(nonce) <= NONCE_MAX
    assert nonce.isdigit()
    assert nonce != digest_nonce(user, day)
    assert nonce != personal_nonce(user, day.replace(year=day.year + 1))


@pytest.mark.parametrize(
    ("day", "weekday"),
    [(date(2026, 11, 30), "Monday 周一"), (date(2026, 12, 6), "Sunday 周日")],
)
def test_header(day: date, weekday: str) -> None:
    assert personal_header(day) == (
        f"📬 **Your paper digest · 你的每日论文 — {weekday} {day.isoformat()}**"
    )


def test_render_pings_nobody() -> None:
    paper = Paper(
        id=1,
        title="A paper",
        venue="ICLR",
        year=2026,
        area="预训练",
        summaries=("摘要。",),
        sources=(),
    )
    plan = DigestPlan(
        picks=(Pick(1, "matches your topic X", ("X",), subscribers=(42,)),),
        requested=1,
        remaining=3,
    )
    message = render_personal(plan, {1: paper}, DAY)
    assert message.content.split("\n")[0] == personal_header(DAY)
    assert "<@" not in message.content
    assert message.mention_user_ids == ()
    assert [e.title for e in message.embeds] == ["A paper"]
