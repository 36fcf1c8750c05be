"""A query's venue and year filters: written in it (`NeurIPS 2023`,
`iclr2026`) or given as options, in the loaded venues' spelling."""

from __future__ import annotations

import re
from collections.abc import Collection

from paperbot.core.text import tokens

MIN_YEAR = 1950
MAX_YEAR = 2100
_GLUED_VENUE_YEAR = re.compile(r"^([a-z][a-z-]*?)((?:19|20)\d{2})$")
_YEAR = re.compile(r"^(?:19|20)\d{2}$")


def split_filters(
    normalized: str, venues: Collection[str], venue: str | None, year: int | None
) -> tuple[list[str], str | None, int | None]:
    """The query's words, and the venue and year it names (`NeurIPS 2023`,
    `iclr2026`) unless the explicit `venue`/`year` options already say them."""
    words: list[str] = []
    by_fold = {v.casefold(): v for v in venues}
    for token in tokens(normalized):
        glued = _GLUED_VENUE_YEAR.match(token)
        if token in by_fold:
            venue = venue or by_fold[token]
        elif _YEAR.match(token) and MIN_YEAR <= int(token) <= MAX_YEAR:
            year = year or int(token)
        elif glued and glued.group(1) in by_fold:
            venue = venue or by_fold[glued.group(1)]
            year = year or int(glued.group(2))
        else:
            words.append(token)
    return words, venue, year


def canonical_venue(venue: str, venues: Collection[str]) -> str:
    """`venue` as the loaded `venues` spell it (any case), else as typed."""
    folded = venue.strip().casefold()
    for known in venues:
        if known.casefold() == folded:
            return known
    return venue.strip()
