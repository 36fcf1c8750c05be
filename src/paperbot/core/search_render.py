"""Search results as Discord-safe plain data: pages of embeds, excerpts with
the matched terms in bold, and the "nothing found" / "query too long" replies.

Pure. Every string that comes from the corpus or the user is escaped for
markdown and defused for mentions; every length is checked against
`core.limits`, and bold markers are added only after trimming, around
matches that survived it, so a trim can never leave a dangling `**`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from paperbot.core import limits
from paperbot.core.lazy import LazySequence
from paperbot.core.links import arxiv_search_url
from paperbot.core.models import Paper
from paperbot.core.render import (
    ELLIPSIS,
    EmbedData,
    MessageData,
    Translate,
    defuse_mentions,
    trim,
    untranslated,
)
from paperbot.core.search import ParsedQuery, QueryProblem

# Fixed texts, in English; `tr` (English -> the reader's language) is applied
# by the callers' catalogs (the search cog's ZH_CN).
RESULTS = "🔎 {count} papers for **{query}**{more} · page {page}/{pages}"
RESULTS_MORE = " (best {shown} of {total})"
NOTHING_FOUND = "No papers found for **{query}**."
DID_YOU_MEAN = "Did you mean:"
TRY_AGAIN = "Try fewer or different words, English or Chinese, or drop the venue/year filter."
NO_SUMMARY = "(no summary)"
EMPTY_QUERY = (
    "Type something to search for: a title, a word, 中文关键词, "
    "or a venue and year such as NeurIPS 2023."
)
QUERY_TOO_LONG = (
    "That query is too long: keep it under {limit} characters (a few keywords work best)."
)
NO_TERMS = (
    "That query has no words to search for (only punctuation, symbols or emoji). "
    "Try a title, a keyword or 中文关键词."
)
ONLY_COMMON_WORDS = (
    "That query has only common words (the, of, 的 ...), which every paper says. "
    "Add the words of a title, a keyword or 中文关键词."
)
UNKNOWN_VENUE = "No loaded paper is from a venue called **{venue}**. The venues are: {venues}."
UNKNOWN_YEAR = "No loaded paper is from {year}. The years are: {years}."
UNKNOWN_VENUE_YEAR = "No loaded **{venue}** paper is from {year}. Its years are: {years}."
YEAR_DROPPED = "Nothing from {year} matched, so these are from any year."
UNSUPPORTED_SCRIPT = (
    "That query has no searchable words: only English and Chinese are indexed, "
    "not the script it is written in. Try English words or 中文关键词."
)


EXCERPT_CHARS = 360  # plain characters of summary shown per result
_CONTEXT_BEFORE = 60  # characters kept before the first match
# Inline markdown anywhere; block markup (quote, heading, list) only at the start.
_MARKDOWN = re.compile(r"([\\*_~`|\[\]])|^([>#-])")
_SENTENCE_START = re.compile(r"(?<=[。！？；.!?;])\s*")
SEARCH_COLOR = 0x5865F2


@dataclass(frozen=True, slots=True)
class ResultItem:
    """One search hit as the renderer needs it."""

    paper: Paper
    matched: tuple[str, ...]  # normalised strings to bold


def escape_markdown(text: str) -> str:
    """Backslash every character Discord markdown could act on."""
    return _MARKDOWN.sub(lambda m: "\\" + (m.group(1) or m.group(2)), text)


def safe_text(text: str) -> str:
    """Corpus or user text made inert: no markdown, no mention look-alikes."""
    return defuse_mentions(escape_markdown(text))


def _fold_with_map(text: str) -> tuple[str, list[int]]:
    """NFKC + casefold of `text`, with the source index of each folded char,
    so a match found in folded form can be located in the original."""
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        folded = unicodedata.normalize("NFKC", ch).casefold()
        out.append(folded)
        where.extend([i] * len(folded))
    return "".join(out), where


def _needle_pattern(needles: Sequence[str]) -> re.Pattern[str] | None:
    """One alternation, longest needle first; Latin needles match whole words."""
    parts = []
    for needle in sorted({n for n in needles if n}, key=lambda n: (-len(n), n)):
        pattern = re.escape(needle)
        if needle.isascii():
            pattern = rf"(?<![0-9a-z]){pattern}(?![0-9a-z])"
        parts.append(pattern)
    return re.compile("|".join(parts)) if parts else None


def match_spans(text: str, needles: Sequence[str]) -> list[tuple[int, int]]:
    """Non-overlapping (start, end) spans of `text` where any needle occurs,
    compared case- and width-insensitively; Latin needles match whole words."""
    pattern = _needle_pattern(needles)
    if pattern is None:
        return []
    folded, where = _fold_with_map(text)
    spans: list[tuple[int, int]] = []
    for m in pattern.finditer(folded):
        start, end = where[m.start()], where[m.end() - 1] + 1
        if not spans or start >= spans[-1][1]:
            spans.append((start, end))
    return spans


def highlight(text: str, needles: Sequence[str]) -> str:
    """Escape `text` and bold the needles in it."""
    out: list[str] = []
    at = 0
    for start, end in match_spans(text, needles):
        out.append(safe_text(text[at:start]))
        out.append(f"**{safe_text(text[start:end])}**")
        at = end
    out.append(safe_text(text[at:]))
    return "".join(out)


def _first_match(text: str, needles: Sequence[str]) -> int | None:
    pattern = _needle_pattern(needles)
    if pattern is None:
        return None
    folded, where = _fold_with_map(text)
    found = pattern.search(folded)
    return where[found.start()] if found else None


def excerpt(summary: str, needles: Sequence[str], limit: int = EXCERPT_CHARS) -> str:
    """A piece of the summary around its first match, trimmed cleanly (at a
    sentence or word end), matches in bold; at most `limit` + markup chars."""
    summary = " ".join(summary.split())
    if not summary:
        return ""
    start = 0
    first = _first_match(summary, needles)
    if first is not None and first > _CONTEXT_BEFORE:
        # Start at the sentence holding the match if it begins close enough.
        starts = [m.end() for m in _SENTENCE_START.finditer(summary, 0, first)]
        close = [s for s in starts if first - s <= _CONTEXT_BEFORE]
        start = close[-1] if close else first - _CONTEXT_BEFORE // 2
    piece = summary[start:]
    prefix = ELLIPSIS if start > 0 else ""
    plain = trim(piece, max(1, limit - len(prefix)))
    body = highlight(plain, needles)
    return prefix + body


def result_embed(
    item: ResultItem, *, position: int, total: int, budget: int, tr: Translate = untranslated
) -> EmbedData:
    """One paper: linked title, venue + year, excerpt; within `budget` chars."""
    paper = item.paper
    title = safe_text(trim(paper.title, limits.EMBED_TITLE_MAX // 2))
    footer = f"{paper.venue} {paper.year} · {paper.area} · {position}/{total}"
    footer = safe_text(trim(footer, 200))
    room = budget - len(title) - len(footer)
    limit = min(EXCERPT_CHARS, max(40, room // 2))
    description = excerpt(paper.summary, item.matched, limit)
    # Escapes and bold markers can at most double the text: shrink until it fits.
    while description and len(description) > min(room, limits.EMBED_DESCRIPTION_MAX):
        limit = max(1, int(limit * 0.8))
        description = excerpt(paper.summary, item.matched, limit) if limit > 20 else ""
    return EmbedData(
        title=title,
        url=arxiv_search_url(paper.title),
        description=description or f"*{safe_text(tr(NO_SUMMARY))}*",
        footer=footer,
        color=SEARCH_COLOR,
    )


def describe_query(query: ParsedQuery, limit: int = 200) -> str:
    """The query as shown back to the user: escaped, defused, short."""
    text = " ".join(query.raw.split())
    filters = [f for f in (query.venue, str(query.year) if query.year else None) if f]
    shown = safe_text(trim(text, limit)) if text else ""
    if filters:
        shown = f"{shown} [{' '.join(safe_text(f) for f in filters)}]".strip()
    return shown


class ResultPages(LazySequence[MessageData]):
    """Pages of at most `page_size` embeds, each within every limit, rendered
    when first read (a paginator usually shows one or two of ten)."""

    def __init__(
        self,
        query: ParsedQuery,
        items: Sequence[ResultItem],
        *,
        total: int,
        page_size: int,
        tr: Translate = untranslated,
        year_dropped: int | None = None,
    ) -> None:
        self._query = query
        self._year_dropped = year_dropped
        # Read a page's items only when that page renders: a lazy sequence
        # (the /search cog's) then works out only the shown papers' matches.
        self._items = items if not isinstance(items, list) else tuple(items)
        self._total = total
        self._size = max(1, min(page_size, limits.EMBEDS_PER_MESSAGE))
        self._tr = tr
        self._count = max(1, -(-len(self._items) // self._size))
        super().__init__(self._count, self._render)

    def _render(self, number: int) -> MessageData:
        tr, size = self._tr, self._size
        count = len(self._items)
        # Every embed gets an equal share of the 6,000 characters, minus a margin.
        budget = (limits.EMBED_TOTAL_MAX - 100) // size
        chunk = [self._items[i] for i in range(number * size, min((number + 1) * size, count))]
        embeds = tuple(
            result_embed(item, position=number * size + i + 1, total=count, budget=budget, tr=tr)
            for i, item in enumerate(chunk)
        )
        more = ""
        if self._total > count:
            more = tr(RESULTS_MORE).format(shown=count, total=self._total)
        content = tr(RESULTS).format(
            count=count,
            query=describe_query(self._query),
            more=more,
            page=number + 1,
            pages=self._count,
        )
        if self._year_dropped is not None:
            content += "\n" + tr(YEAR_DROPPED).format(year=self._year_dropped)
        return MessageData(
            content=trim(content, limits.CONTENT_MAX),
            embeds=embeds,
            paper_ids=tuple(item.paper.id for item in chunk),
        )


def result_pages(
    query: ParsedQuery,
    items: Sequence[ResultItem],
    *,
    total: int,
    page_size: int,
    tr: Translate = untranslated,
) -> list[MessageData]:
    """Every page at once (see `ResultPages`)."""
    return list(ResultPages(query, items, total=total, page_size=page_size, tr=tr))


def nothing_found(
    query: ParsedQuery, suggestions: Sequence[str], tr: Translate = untranslated
) -> MessageData:
    """No result: say so, and offer the closest titles if there are any."""
    lines = [tr(NOTHING_FOUND).format(query=describe_query(query))]
    if suggestions:
        lines.append(tr(DID_YOU_MEAN))
        lines.extend(f"• {safe_text(trim(t, 150))}" for t in suggestions[:5])
    else:
        lines.append(tr(TRY_AGAIN))
    return MessageData(content=trim("\n".join(lines), limits.CONTENT_MAX))


def query_problem(
    problem: QueryProblem,
    max_length: int,
    tr: Translate = untranslated,
    *,
    venue: str | None = None,
    venues: Sequence[str] = (),
    year: int | None = None,
    years: Sequence[int] = (),
) -> str:
    """The answer to a query that cannot be searched (`venue` and the loaded
    `venues` for `UNKNOWN_VENUE`, `year` and `years` for `UNKNOWN_YEAR`,
    where a `venue` says whose years they are)."""
    template = {
        QueryProblem.EMPTY: EMPTY_QUERY,
        QueryProblem.TOO_LONG: QUERY_TOO_LONG,
        QueryProblem.NO_TERMS: NO_TERMS,
        QueryProblem.ONLY_COMMON_WORDS: ONLY_COMMON_WORDS,
        QueryProblem.UNSUPPORTED_SCRIPT: UNSUPPORTED_SCRIPT,
        QueryProblem.UNKNOWN_VENUE: UNKNOWN_VENUE,
        QueryProblem.UNKNOWN_YEAR: UNKNOWN_YEAR,
    }[problem]
    if problem is QueryProblem.UNKNOWN_YEAR and venue:
        template = UNKNOWN_VENUE_YEAR
    text = tr(template).format(
        limit=max_length,
        venue=safe_text(trim(venue or "", 100)),
        venues=", ".join(safe_text(v) for v in venues),
        year=year,
        years=", ".join(str(y) for y in years),
    )
    return trim(text, limits.CONTENT_MAX)
