"""The digest archive (`/digest history`, `paperbot digest history`) as
plain data: past posts and their pages. Pure: no discord, no SQL, no I/O.

A page holds up to `POSTS_PER_PAGE` posts, one embed each (the date, a
jump link to the original message, the picks with their titles linked), and
stays within Discord's 6,000 embed characters: a page takes fewer posts
rather than cut one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from paperbot.core import limits
from paperbot.core.links import arxiv_search_url
from paperbot.core.render import EmbedData, MessageData, Translate, defuse_mentions, untranslated

POSTS_PER_PAGE = 5
TITLE_SHOWN = 90
HISTORY_COLOR = 0x64748B

DAILY = "Daily digest"
EXTRA = "Extra digest"
JUMP = "Jump to the post"
PAGE_HEAD = "Past digests of this server, newest first."
PAGE_HEAD_UNTIL = "Past digests of this server up to {date}, newest first."
NO_PICKS = "*No papers (everything had been posted).*"


@dataclass(frozen=True, slots=True)
class ArchivedPick:
    title: str
    venue: str
    year: int


@dataclass(frozen=True, slots=True)
class ArchivedPost:
    """A confirmed post of a server's digest."""

    guild_id: int
    channel_id: int
    message_id: int
    local_date: date
    extra: bool
    picks: tuple[ArchivedPick, ...]

    @property
    def jump_url(self) -> str:
        return f"https://discord.com/channels/{self.guild_id}/{self.channel_id}/{self.message_id}"


_DATE = re.compile(r"^(\d{4})[-/.年](\d{1,2})[-/.月](\d{1,2})日?$")


def parse_date(text: str) -> date | None:
    """`2026-11-30` (also `2026/11/30`, `2026年11月30日`, full-width digits); None if not a date."""
    match = _DATE.match(unicodedata.normalize("NFKC", text).strip())
    if match is None:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def post_embed(post: ArchivedPost, tr: Translate = untranslated) -> EmbedData:
    """One post: `Daily digest — 2026-11-30`, linked to the message, the picks listed."""
    jump = f"[{tr(JUMP)}]({post.jump_url})"
    # Titles can make long search links: list what fits, then say how many more.
    budget = limits.EMBED_DESCRIPTION_MAX - len(jump) - len("\n… +10 more\n")
    lines: list[str] = []
    for number, item in enumerate(post.picks, start=1):
        title = defuse_mentions(_clip(item.title, TITLE_SHOWN)).replace("[", "(").replace("]", ")")
        line = f"{number}. [{title}]({arxiv_search_url(item.title)}) · {item.venue} {item.year}"
        if sum(len(x) + 1 for x in lines) + len(line) > budget:
            lines.append(f"… +{len(post.picks) - number + 1} more")
            break
        lines.append(line)
    body = "\n".join([*lines, jump]) if post.picks else f"{tr(NO_PICKS)}\n{jump}"
    kind = tr(EXTRA) if post.extra else tr(DAILY)
    return EmbedData(
        title=f"{kind} — {post.local_date.isoformat()}",
        description=body,
        url=post.jump_url,
        color=HISTORY_COLOR,
    )


def history_pages(
    posts: Sequence[ArchivedPost], until: date | None = None, tr: Translate = untranslated
) -> list[MessageData]:
    """Pages of posts, newest first as given, each within Discord's limits."""
    head = tr(PAGE_HEAD_UNTIL).format(date=until.isoformat()) if until else tr(PAGE_HEAD)
    pages: list[MessageData] = []
    embeds: list[EmbedData] = []
    used = 0
    for post in posts:
        embed = post_embed(post, tr)
        full = len(embeds) >= POSTS_PER_PAGE or used + embed.size() > limits.EMBED_TOTAL_MAX
        if embeds and full:
            pages.append(MessageData(content=head, embeds=tuple(embeds)))
            embeds, used = [], 0
        embeds.append(embed)
        used += embed.size()
    if embeds:
        pages.append(MessageData(content=head, embeds=tuple(embeds)))
    return pages


def history_json(posts: Sequence[ArchivedPost]) -> list[dict[str, object]]:
    """The archive as JSON-ready data (CLI `--json`)."""
    return [
        {
            "date": post.local_date.isoformat(),
            "kind": "extra" if post.extra else "daily",
            "channel_id": post.channel_id,
            "message_id": post.message_id,
            "url": post.jump_url,
            "picks": [
                {
                    "title": p.title,
                    "venue": p.venue,
                    "year": p.year,
                    "url": arxiv_search_url(p.title),
                }
                for p in post.picks
            ],
        }
        for post in posts
    ]


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
