""" "More like this" answers as plain data (pure): one embed per neighbour,
the shared topics as the reason."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from paperbot.core import limits
from paperbot.core.links import arxiv_search_url
from paperbot.core.models import Paper
from paperbot.core.render import (
    EmbedData,
    MessageData,
    Translate,
    defuse_mentions,
    trim,
    untranslated,
)

SIMILAR_COLOR = 0x10B981
SIMILAR_HEADER = "🔎 Papers like **{title}**"
SHARED = "Shared topics: {topics}"
WORDING = "Similar wording (title and summary)"
NOTHING_SIMILAR = "No other loaded paper is close to **{title}**."
_SUMMARY_CAP = 400


@dataclass(frozen=True, slots=True)
class SimilarItem:
    paper: Paper
    score: float
    shared: tuple[str, ...]


def render_similar(
    anchor: Paper, items: Sequence[SimilarItem], tr: Translate = untranslated
) -> MessageData:
    """The answer to "more like this": header and one embed per similar paper."""
    title = defuse_mentions(trim(anchor.title, 200))
    if not items:
        return MessageData(content=tr(NOTHING_SIMILAR).format(title=title))
    embeds = tuple(_embed(item, tr) for item in items[: limits.EMBEDS_PER_MESSAGE])
    return MessageData(
        content=tr(SIMILAR_HEADER).format(title=title),
        embeds=embeds,
        paper_ids=tuple(item.paper.id for item in items[: len(embeds)]),
    )


def _embed(item: SimilarItem, tr: Translate) -> EmbedData:
    paper = item.paper
    reason = tr(SHARED).format(topics=", ".join(item.shared[:4])) if item.shared else tr(WORDING)
    return EmbedData(
        title=defuse_mentions(trim(paper.title, limits.EMBED_TITLE_MAX)),
        description=defuse_mentions(trim(paper.summary, _SUMMARY_CAP)),
        url=arxiv_search_url(paper.title),
        footer=trim(f"{paper.venue} {paper.year} · {reason} · {item.score:.2f}", 500),
        color=SIMILAR_COLOR,
    )
