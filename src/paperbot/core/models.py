"""Plain data shared by the pure core, the store and the edges."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Literal

from paperbot.core.render import MessageData


@dataclass(frozen=True, slots=True)
class Source:
    """Where an entry was read: a corpus file name and a 1-based line."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True, slots=True)
class Entry:
    """One paper as one corpus file states it (a title, maybe a summary)."""

    title: str
    venue: str
    year: int
    area: str
    summaries: tuple[str, ...]
    source: Source


@dataclass(frozen=True, slots=True)
class Problem:
    """A line or file that could not be understood, and why."""

    file: str
    line: int | None
    reason: str
    # A warning: the line or file was still loaded, but someone should look.
    warning: bool = False

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.reason}"


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """What one corpus file yielded: its entries and the problems met."""

    file: str
    entries: tuple[Entry, ...]
    problems: tuple[Problem, ...]


@dataclass(frozen=True, slots=True)
class PaperRecord:
    """A paper merged from all its entries, ready to be stored.

    `entries` keeps each source with its own summaries, so reloading one file
    can replace exactly what that file said and keep what other files said.
    """

    key: str
    title: str
    venue: str
    year: int
    area: str
    entries: tuple[Entry, ...]

    @property
    def summaries(self) -> tuple[str, ...]:
        entries = self.entries
        if len(entries) == 1 and len(entries[0].summaries) < 2:
            return entries[0].summaries  # the usual paper: nothing to repeat
        return unique(s for entry in entries for s in entry.summaries)

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(str(entry.source) for entry in self.entries)


@dataclass(frozen=True, slots=True)
class Paper:
    """A stored paper, as the rest of the bot sees it."""

    id: int
    title: str
    venue: str
    year: int
    area: str
    summaries: tuple[str, ...]
    sources: tuple[str, ...]

    @property
    def summary(self) -> str:
        """All summaries as one text (most papers have exactly one)."""
        return "\n\n".join(self.summaries)


@dataclass(frozen=True, slots=True)
class VenueCount:
    """How many loaded papers one venue has in one year."""

    venue: str
    year: int
    papers: int


@dataclass(slots=True)
class PaperColumns:
    """What the index builder reads, column-wise (no Paper objects)."""

    ids: list[int] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    venues: list[str] = field(default_factory=list)
    years: list[int] = field(default_factory=list)
    summaries: list[str] = field(default_factory=list)


# ----------------------------------------------------------- subscriptions

# 'topic' for a vocabulary id, 'keyword' for a free keyword's normalised key.
SubscriptionKind = Literal["topic", "keyword"]


@dataclass(frozen=True, slots=True)
class Subscription:
    guild_id: int
    user_id: int
    kind: SubscriptionKind
    topic: str
    label: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class TopicSubscribers:
    """One topic followed in a server, with everyone who follows it there."""

    kind: SubscriptionKind
    topic: str
    label: str
    user_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TopicCount:
    kind: SubscriptionKind
    topic: str
    label: str
    subscribers: int


# ------------------------------------------------------------- saved papers


@dataclass(frozen=True, slots=True)
class SavedPaper:
    """A paper a reader saved in one server, and when. `retired` is True when
    no page lists the paper any more (it stays saved and exportable)."""

    paper: Paper
    saved_at: datetime
    retired: bool


# ------------------------------------------------------------------ digest

PostKind = Literal["scheduled", "manual"]
PostState = Literal["claimed", "sent", "confirmed", "failed", "expired"]


@dataclass(frozen=True, slots=True)
class DailySchedule:
    """A daily digest's schedule as stored, a server's or a reader's DM's:
    when (local time and timezone), how many papers, on since when."""

    post_time: time
    timezone: str
    count: int
    enabled: bool
    active_since: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class DigestSettings(DailySchedule):
    """One server's digest schedule: its channel, who set it, its last failure."""

    guild_id: int
    channel_id: int
    updated_by: int | None
    failure: str | None
    failure_at: datetime | None


@dataclass(frozen=True, slots=True)
class PostRecord:
    """What every digest post records, a server's post or a reader's DM:
    its message and papers, and how far its delivery got."""

    id: int
    local_date: date
    nonce: str
    header: str
    paper_ids: tuple[int, ...]
    message: MessageData
    state: PostState
    claimed_at: datetime
    deadline: datetime
    sent_at: datetime | None
    attempts: int
    message_id: int | None
    error: str | None


@dataclass(frozen=True, slots=True)
class DigestPost(PostRecord):
    """One server's digest post."""

    guild_id: int
    channel_id: int
    kind: PostKind


def unique(items: Iterable[str]) -> tuple[str, ...]:
    """Items in first-seen order without repeats."""
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return tuple(seen)


@dataclass(frozen=True, slots=True)
class FileSource:
    """Where a page (known by its file name) was last loaded from, and when."""

    path: str
    loaded_at: datetime
