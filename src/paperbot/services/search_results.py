"""What a search answers (`SearchResult`, its `SearchHit`s) and how the
index became current (`IndexStatus`): the values `services.search` returns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from paperbot.core.models import Paper
from paperbot.core.search import ParsedQuery, QueryProblem, SearchIndex, loaded_years


@dataclass(frozen=True, slots=True)
class SearchHit:
    paper: Paper
    score: float
    # The ranking's matches (maybe worked out on first read) and this hit's
    # place in them: a hit nobody shows never pays for its highlight.
    ranked_matches: Sequence[tuple[str, ...]] = field(default=(), repr=False, compare=False)
    position: int = 0

    @property
    def matched(self) -> tuple[str, ...]:
        """Normalised strings that matched, for highlighting."""
        if self.position < len(self.ranked_matches):
            return self.ranked_matches[self.position]
        return ()


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: ParsedQuery
    hits: tuple[SearchHit, ...] = ()
    total: int = 0  # ranked papers (the re-ranker looks at the best `CANDIDATES`)
    suggestions: tuple[str, ...] = ()  # closest titles when nothing was found
    # A year read from the query text that found nothing, so it was dropped
    # and these hits are from any year.
    year_dropped: int | None = None
    # The loaded venues and years, for the answer to an unknown one.
    venues: tuple[str, ...] = ()
    years: tuple[int, ...] = ()

    @property
    def problem(self) -> QueryProblem | None:
        return self.query.problem


def problem_result(index: SearchIndex, query: ParsedQuery) -> SearchResult:
    """The answer to a query that cannot be searched; an unknown venue or
    year comes with the loaded ones (only then: the years are a pass over
    every paper)."""
    if query.problem is QueryProblem.UNKNOWN_VENUE:
        return SearchResult(query, venues=index.venues)
    if query.problem is QueryProblem.UNKNOWN_YEAR:
        return SearchResult(query, years=loaded_years(index, query.venue))
    return SearchResult(query)


@dataclass(frozen=True, slots=True)
class IndexStatus:
    papers: int
    corpus_version: int
    source: str  # "built", "stored" or "appended"
    seconds: float
