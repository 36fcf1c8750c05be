"""Schedule math with an injected clock: timezones, DST, past times, missed runs."""

from __future__ import annotations

import zoneinfo
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from apscheduler.triggers.cron import CronTrigger

from paperbot.core import schedule
from paperbot.core.schedule import DailyTime, ScheduleError

KNOWN = frozenset(zoneinfo.available_timezones())
NY = ZoneInfo("America/New_York")
SH = ZoneInfo("Asia/Shanghai")
LON = ZoneInfo("Europe/London")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("09:00", time(9, 0)),
        ("9:05", time(9, 5)),
        ("21:30", time(21, 30)),
        ("0930", time(9, 30)),
        ("21：05", time(21, 5)),  # full-width colon, as typed with a Chinese IME
        ("00:00", time(0, 0)),
        ("23:59", time(23, 59)),
        ("9pm", time(21, 0)),
        ("12am", time(0, 0)),
        ("12:30 PM", time(12, 30)),
        (" 7 ", time(7, 0)),
        ("8点30", time(8, 30)),
    ],
)
def test_parse_time_accepts(text: str, expected: time) -> None:
    assert schedule.parse_time(text) == expected


@pytest.mark.parametrize("text", ["24:00", "12:60", "noon", "", "9:5", "13pm", "-1:00", "1:2:3"])
def test_parse_time_refuses_with_examples(text: str) -> None:
    with pytest.raises(ScheduleError) as info:
        schedule.parse_time(text)
    assert "09:00" in str(info.value)  # the message shows how to write it


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Asia/Shanghai", "Asia/Shanghai"),
        ("asia/shanghai", "Asia/Shanghai"),
        ("america/new york", "America/New_York"),
        ("UTC", "UTC"),
        ("utc", "UTC"),
        ("北京", "Asia/Shanghai"),
        ("Beijing", "Asia/Shanghai"),
        ("UTC+8", "Etc/GMT-8"),  # POSIX sign convention is inverted
        ("GMT-5", "Etc/GMT+5"),
        ("UTC+0", "UTC"),
    ],
)
def test_parse_timezone_accepts(text: str, expected: str) -> None:
    assert schedule.parse_timezone(text, KNOWN).key == expected


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("Asia/Shangai", "Asia/Shanghai"),
        ("Europe/Londn", "Europe/London"),
        ("Mars/Olympus", "Asia/Shanghai"),  # no close match: the examples still teach
        ("UTC+5:30", "Asia/Shanghai"),
        ("", "Europe/London"),
    ],
)
def test_parse_timezone_refuses_with_help(text: str, hint: str) -> None:
    with pytest.raises(ScheduleError) as info:
        schedule.parse_timezone(text, KNOWN)
    assert hint in str(info.value)


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("shang", "Asia/Shanghai"),
        ("new york", "America/New_York"),
        ("londn", "Europe/London"),
        ("上海", "Asia/Shanghai"),
        ("", "UTC"),
    ],
)
def test_suggest_timezones(query: str, first: str) -> None:
    found = schedule.suggest_timezones(query, KNOWN, limit=25)
    assert found[0] == first
    assert len(found) <= 25
    assert len(set(found)) == len(found)


@pytest.mark.parametrize(
    ("now", "at", "tz", "expected"),
    [
        # Later today in Shanghai (UTC+8): 09:00 local is 01:00 UTC.
        (utc(2026, 11, 30, 0, 30), time(9, 0), SH, utc(2026, 11, 30, 1, 0)),
        # Already past today: starts tomorrow.
        (utc(2026, 11, 30, 2, 0), time(9, 0), SH, utc(2026, 12, 1, 1, 0)),
        # Exactly at the slot: the next one is tomorrow (strictly after now).
        (utc(2026, 11, 30, 1, 0), time(9, 0), SH, utc(2026, 12, 1, 1, 0)),
        # The local date differs from the UTC date (New York evening).
        (utc(2026, 12, 1, 1, 0), time(21, 0), NY, utc(2026, 12, 1, 2, 0)),
        # Spring forward: 02:30 does not exist on 8 March in New York -> 03:30 EDT.
        (utc(2026, 3, 8, 5, 0), time(2, 30), NY, utc(2026, 3, 8, 7, 30)),
        # Fall back: 01:30 happens twice on 1 November -> the first (EDT).
        (utc(2026, 11, 1, 4, 0), time(1, 30), NY, utc(2026, 11, 1, 5, 30)),
        # London across its DST change: 08:00 BST then 08:00 GMT.
        (utc(2026, 10, 24, 8, 0), time(8, 0), LON, utc(2026, 10, 25, 8, 0)),
        (utc(2026, 3, 28, 9, 0), time(8, 0), LON, utc(2026, 3, 29, 7, 0)),
    ],
)
def test_next_post(now: datetime, at: time, tz: ZoneInfo, expected: datetime) -> None:
    assert schedule.next_post(now, DailyTime(at, tz)) == expected


@pytest.mark.parametrize(
    ("now", "at", "tz"),
    [
        (utc(2026, 3, 7, 12, 0), time(2, 30), NY),  # into the spring gap
        (utc(2026, 10, 31, 12, 0), time(1, 30), NY),  # into the autumn fold
        (utc(2026, 11, 30, 9, 0), time(9, 0), SH),
        (utc(2026, 6, 1, 23, 59), time(0, 0), ZoneInfo("Australia/Lord_Howe")),  # 30-min DST
    ],
)
def test_next_post_agrees_with_apscheduler_cron(now: datetime, at: time, tz: ZoneInfo) -> None:
    """The time shown to admins is the time the CronTrigger really fires."""
    trigger = CronTrigger(hour=at.hour, minute=at.minute, timezone=tz)
    fired = trigger.get_next_fire_time(None, now + timedelta(microseconds=1))
    assert fired is not None
    assert fired.astimezone(UTC) == schedule.next_post(now, DailyTime(at, tz))


def test_next_post_skips_a_day_already_posted() -> None:
    daily = DailyTime(time(18, 0), SH)
    now = utc(2026, 11, 30, 2, 0)  # 10:00 in Shanghai, 18:00 still to come
    assert schedule.next_post(now, daily) == utc(2026, 11, 30, 10, 0)
    posted_today = date(2026, 11, 30)
    assert schedule.next_post(now, daily, skip=posted_today) == utc(2026, 12, 1, 10, 0)


@pytest.mark.parametrize(
    ("now", "since", "expected"),
    [
        # Bot down at 09:00 Shanghai, back at 15:00: still that local day -> owed.
        (utc(2026, 11, 30, 7, 0), utc(2026, 11, 1), date(2026, 11, 30)),
        # Back after local midnight (+ grace): the day has ended -> not owed.
        (utc(2026, 11, 30, 16, 30), utc(2026, 11, 1), None),
        # Within the grace after midnight: a late run still counts for its day.
        (utc(2026, 11, 30, 16, 10), utc(2026, 11, 1), date(2026, 11, 30)),
        # Before today's slot: yesterday's slot is past its day -> nothing owed.
        (utc(2026, 11, 30, 0, 30), utc(2026, 11, 1), None),
        # Set up at 10:00 for 09:00: a time already past today starts tomorrow.
        (utc(2026, 11, 30, 3, 0), utc(2026, 11, 30, 2, 0), None),
        # At the slot itself.
        (utc(2026, 11, 30, 1, 0), utc(2026, 11, 1), date(2026, 11, 30)),
    ],
)
def test_due_date(now: datetime, since: datetime, expected: date | None) -> None:
    daily = DailyTime(time(9, 0), SH)
    assert schedule.due_date(now, daily, since) == expected


def test_local_date_and_day_end() -> None:
    assert schedule.local_date(utc(2026, 11, 30, 17, 0), SH) == date(2026, 12, 1)
    assert schedule.local_date(utc(2026, 11, 30, 3, 0), NY) == date(2026, 11, 29)
    # A 23-hour local day: the spring-forward Sunday in New York.
    start = schedule.day_end(date(2026, 3, 7), NY)
    assert schedule.day_end(date(2026, 3, 8), NY) - start == timedelta(hours=23)


def test_naive_datetimes_are_refused() -> None:
    with pytest.raises(ValueError, match="aware"):
        schedule.local_date(datetime(2026, 1, 1), SH)  # noqa: DTZ001


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ((1, date(2026, 1, 1)), (1, date(2026, 1, 1)), True),
        ((1, date(2026, 1, 1)), (1, date(2026, 1, 2)), False),
        ((1, date(2026, 1, 1)), (2, date(2026, 1, 1)), False),
    ],
)
def test_nonce_is_deterministic_and_short(
    a: tuple[int, date], b: tuple[int, date], same: bool
) -> None:
    first, second = schedule.digest_nonce(*a), schedule.digest_nonce(*b)
    assert (first == second) is same
    assert len(first) <= schedule.NONCE_MAX
    assert first.isdigit()
