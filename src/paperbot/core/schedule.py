"""Schedule math for the daily digest, with `now` always passed in.

A server posts once per *local* day at a wall-clock time in its own IANA
timezone. The instant of a local time follows Python's (and APScheduler 3's)
reading of wall time with `fold=0`:

- in a spring-forward gap the missing wall time lands one gap later
  (02:30 on the day New York skips 02:00-03:00 is posted at 03:30 EDT);
- in a fall-back fold the first of the two occurrences counts (the second one
  belongs to the same local date, so the per-date claim keeps it from posting).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from rapidfuzz import process
from rapidfuzz.distance import JaroWinkler

# A late run (event loop busy, send queue, a restart) still counts for its day
# this long after local midnight; later than that the day's post is skipped.
DAY_END_GRACE = timedelta(minutes=15)
# Discord caps a nonce at 25 characters.
NONCE_MAX = 25

_TIME_24H = re.compile(r"^(?P<h>\d{1,2})(?::(?P<m>\d{2}))?$")
_TIME_HHMM = re.compile(r"^(?P<h>\d{2})(?P<m>\d{2})$")
_TIME_12H = re.compile(r"^(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ampm>am|pm|a\.m\.|p\.m\.)$")
_UTC_OFFSET = re.compile(r"^(?:utc|gmt)\s*(?P<sign>[+-])\s*(?P<h>\d{1,2})(?::?(?P<m>\d{2}))?$")

TIME_EXAMPLES = "e.g. `09:00`, `18:30` or `21:05` (24-hour clock)"
TIMEZONE_EXAMPLES = "e.g. `Asia/Shanghai`, `Europe/London`, `America/New_York` or `UTC`"

# Names people type that are not IANA names; the value is the IANA zone.
TIMEZONE_ALIASES: dict[str, str] = {
    "utc": "UTC",
    "gmt": "UTC",
    "z": "UTC",
    "beijing": "Asia/Shanghai",
    "北京": "Asia/Shanghai",
    "上海": "Asia/Shanghai",
    "china": "Asia/Shanghai",
    "中国": "Asia/Shanghai",
    "深圳": "Asia/Shanghai",
    "杭州": "Asia/Shanghai",
    "香港": "Asia/Hong_Kong",
    "台北": "Asia/Taipei",
    "台湾": "Asia/Taipei",
    "新加坡": "Asia/Singapore",
    "东京": "Asia/Tokyo",
    "首尔": "Asia/Seoul",
    "伦敦": "Europe/London",
    "巴黎": "Europe/Paris",
    "柏林": "Europe/Berlin",
    "苏黎世": "Europe/Zurich",
    "纽约": "America/New_York",
    "旧金山": "America/Los_Angeles",
    "san francisco": "America/Los_Angeles",
    "seattle": "America/Los_Angeles",
    "西雅图": "America/Los_Angeles",
    "boston": "America/New_York",
    "波士顿": "America/New_York",
    "多伦多": "America/Toronto",
    "悉尼": "Australia/Sydney",
    "pacific": "America/Los_Angeles",
    "eastern": "America/New_York",
}


class ScheduleError(ValueError):
    """A time or timezone a user typed is not valid; `str()` says how to fix it."""


@dataclass(frozen=True, slots=True)
class DailyTime:
    """A wall-clock time in an IANA timezone."""

    at: time
    tz: ZoneInfo

    @property
    def label(self) -> str:
        return f"{self.at:%H:%M} {self.tz.key}"


def parse_time(text: str) -> time:
    """`HH:MM` (24-hour; `9:30`, `0930`, `21：05` and `9:30pm` are accepted too)."""
    cleaned = unicodedata.normalize("NFKC", text).strip().casefold().replace(" ", "")
    cleaned = cleaned.replace("点", ":").replace("h", ":").rstrip(":")
    hour: int | None = None
    minute = 0
    if m := _TIME_12H.match(cleaned):
        hour, minute = int(m["h"]), int(m["m"] or 0)
        if not 1 <= hour <= 12:
            raise ScheduleError(f"`{text}` is not a valid time: {TIME_EXAMPLES}.")
        hour = hour % 12 + (12 if m["ampm"].startswith("p") else 0)
    elif (m := _TIME_24H.match(cleaned)) or (m := _TIME_HHMM.match(cleaned)):
        hour, minute = int(m["h"]), int(m["m"] or 0)
    if hour is None or not (0 <= hour <= 23 and 0 <= minute <= 59):
        raise ScheduleError(f"`{text}` is not a valid time: use HH:MM, {TIME_EXAMPLES}.")
    return time(hour, minute)


def parse_timezone(text: str, known: Collection[str]) -> ZoneInfo:
    """An IANA timezone from what a user typed.

    `known` is the set of IANA names (`zoneinfo.available_timezones()`), passed
    in so this stays pure. Case does not matter; a few city names (北京,
    Beijing) and `UTC+8` style offsets are understood.
    """
    name = resolve_timezone_name(text, known)
    if name is None:
        hint = suggest_timezones(text, known, limit=3)
        did_you_mean = f" Did you mean {', '.join(f'`{h}`' for h in hint)}?" if hint else ""
        raise ScheduleError(
            f"`{text.strip()[:60]}` is not a timezone I know.{did_you_mean}"
            f" Use an IANA name, {TIMEZONE_EXAMPLES}."
        )
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ScheduleError(f"`{name}` is not usable here: {exc}") from None


def resolve_timezone_name(text: str, known: Collection[str]) -> str | None:
    cleaned = unicodedata.normalize("NFKC", text).strip()
    if not cleaned:
        return None
    if cleaned in known:
        return cleaned
    folded = cleaned.casefold()
    if folded in TIMEZONE_ALIASES:
        return TIMEZONE_ALIASES[folded]
    if m := _UTC_OFFSET.match(folded):
        return _etc_zone(m["sign"], int(m["h"]), int(m["m"] or 0), known)
    by_fold = {name.casefold(): name for name in known}
    return by_fold.get(folded.replace(" ", "_"))


def _etc_zone(sign: str, hours: int, minutes: int, known: Collection[str]) -> str | None:
    if minutes or hours > 14:
        return None  # Etc/ zones are whole hours only; a city name is needed
    if hours == 0:
        return "UTC"
    # POSIX sign convention: UTC+8 is Etc/GMT-8.
    name = f"Etc/GMT{'-' if sign == '+' else '+'}{hours}"
    return name if name in known else None


def suggest_timezones(text: str, known: Iterable[str], limit: int = 25) -> list[str]:
    """Timezone names for an autocomplete box: aliases, prefixes, then fuzzy."""
    query = unicodedata.normalize("NFKC", text).strip().casefold()
    names = sorted(n for n in known if "/" in n or n == "UTC")
    if not query:
        return _POPULAR[:limit]
    found: list[str] = []
    alias = TIMEZONE_ALIASES.get(query)
    if alias:
        found.append(alias)
    squashed = _squash(query)
    # The city part matters most: "shang" and "new york" find their zones.
    found += [n for n in names if _squash(n.split("/")[-1]).startswith(squashed)]
    found += [n for n in names if squashed in _squash(n)]
    if len(found) < limit:
        fuzzy = process.extract(
            squashed,
            {n: _squash(n.split("/")[-1]) for n in names},
            scorer=JaroWinkler.normalized_similarity,
            limit=limit,
            score_cutoff=0.8,
        )
        found += [str(match[2]) for match in fuzzy]
    unique = list(dict.fromkeys(found))
    return unique[:limit]


_POPULAR = [
    "UTC",
    "Asia/Shanghai",
    "Asia/Hong_Kong",
    "Asia/Taipei",
    "Asia/Singapore",
    "Asia/Tokyo",
    "Asia/Seoul",
    "Asia/Kolkata",
    "Europe/London",
    "Europe/Paris",
    "Europe/Berlin",
    "Europe/Zurich",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Toronto",
    "America/Sao_Paulo",
    "Australia/Sydney",
    "Pacific/Auckland",
]


def _squash(text: str) -> str:
    return re.sub(r"[\s_\-]+", "", text.casefold())


def _require_aware(now: datetime) -> None:
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be timezone-aware")


def slot_on(day: date, daily: DailyTime) -> datetime:
    """The instant (UTC) of the post for a local date."""
    return datetime.combine(day, daily.at, tzinfo=daily.tz).astimezone(UTC)


def local_date(now: datetime, tz: ZoneInfo) -> date:
    """The server-local date at an instant."""
    _require_aware(now)
    return now.astimezone(tz).date()


def next_post(now: datetime, daily: DailyTime, *, skip: date | None = None) -> datetime:
    """The next post instant strictly after `now` (UTC).

    `skip` is a local date that already had its post: changing the time on
    such a day schedules the next post for the following day.
    """
    today = local_date(now, daily.tz)
    for offset in range(3):
        day = today + timedelta(days=offset)
        slot = slot_on(day, daily)
        if slot > now and day != skip:
            return slot
    raise AssertionError("unreachable: a later local day always has a slot")


def latest_slot(now: datetime, daily: DailyTime) -> tuple[date, datetime]:
    """The most recent post instant at or before `now`, with its local date."""
    today = local_date(now, daily.tz)
    for offset in range(3):
        day = today - timedelta(days=offset)
        slot = slot_on(day, daily)
        if slot <= now:
            return day, slot
    raise AssertionError("unreachable: an earlier local day always has a slot")


def day_end(day: date, tz: ZoneInfo) -> datetime:
    """The instant (UTC) the local date ends: the next local midnight."""
    return datetime.combine(day + timedelta(days=1), time(0), tzinfo=tz).astimezone(UTC)


def due_date(
    now: datetime,
    daily: DailyTime,
    active_since: datetime,
    *,
    grace: timedelta = DAY_END_GRACE,
) -> date | None:
    """The local date whose post is owed at `now`, or None.

    A post is owed when its slot has passed, the schedule was already active
    at the slot (a time set after it starts tomorrow), and the local day has
    not ended (plus a short grace for a late run). Whether that date was
    already posted is the store's claim to decide.
    """
    _require_aware(active_since)
    day, slot = latest_slot(now, daily)
    if slot < active_since or now >= day_end(day, daily.tz) + grace:
        return None
    return day


def digest_nonce(guild_id: int, day: date) -> str:
    """A deterministic Discord nonce for a server's post on a local date.

    Re-sending after a crash with the same nonce and `enforce_nonce` makes
    Discord return the first message instead of creating a second one.
    """
    digest = hashlib.blake2b(
        f"paperbot-digest:{guild_id}:{day.isoformat()}".encode(), digest_size=8
    )
    # 63 bits as decimal: at most 19 characters, within Discord's 25.
    return str(int.from_bytes(digest.digest(), "big") >> 1)
