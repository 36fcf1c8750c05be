"""Papers holding a CJK character, a bit each, kept per corpus.

The feedback (`_feedback.feedback`) asks, for every CJK pair of a topic's
profile, which of many borderline papers hold both characters: from the
postings that is a gather over each character's papers (tens of thousands
for a common one) or a binary search per paper, again for every term and
topic. A common character's papers as bits (12.5 kB at 100,000 papers) are
made once per corpus, and a term's answer is an AND of its characters' bits
and a look-up per paper.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from paperbot.core.topics._corpus import Postings, TopicCorpus

PosList = npt.NDArray[np.intp]
Bits = npt.NDArray[np.uint8]
_NONE = np.zeros(0, dtype=np.int32)

COMMON_SHARE = 32
"""A character is kept as bits when at least 1/32 of the papers hold it:
its bits (a byte per 8 papers) then take no more room than its postings (4
bytes a paper); a rarer one's few papers are searched each time."""


def holding_all(
    corpus: TopicCorpus, postings: Postings, chars: Iterable[str], positions: PosList
) -> npt.NDArray[np.bool_]:
    """Which of `positions` hold every one of `chars` (by `postings`, a field's)."""
    both = np.ones(len(positions), dtype=np.bool_)
    common: list[str] = []
    for char in chars:
        held = postings.get(char, _NONE)
        if len(held) * COMMON_SHARE >= len(corpus):
            common.append(char)
            continue
        if len(held) == 0:
            return np.zeros(len(positions), dtype=np.bool_)
        # Searched in the postings' own type: a mixed one would copy them.
        wanted = positions.astype(held.dtype)
        at = np.searchsorted(held, wanted).clip(0, len(held) - 1)
        both &= held[at] == wanted
    if common:
        both &= bits_at(all_bits(corpus, postings, common), positions)
    return both


def all_bits(corpus: TopicCorpus, postings: Postings, chars: Iterable[str]) -> Bits:
    """Papers holding every one of `chars`, a bit each (`np.packbits`), each
    character's bits kept with the corpus (`TopicCorpus.char_bits`)."""
    known = corpus.char_bits
    both: Bits | None = None
    for char in chars:
        held = known.get((id(postings), char))
        if held is None:
            mark = np.zeros(len(corpus), dtype=np.bool_)
            mark[postings.get(char, _NONE)] = True
            held = known[(id(postings), char)] = np.packbits(mark)
        both = held if both is None else both & held
    return both if both is not None else np.packbits(np.ones(len(corpus), dtype=np.bool_))


def bits_at(bits: Bits, positions: PosList) -> npt.NDArray[np.bool_]:
    """The bits (`np.packbits` order) at `positions`."""
    shift = (7 - (positions & 7)).astype(np.uint8)
    found: npt.NDArray[np.bool_] = ((bits[positions >> 3] >> shift) & 1).astype(np.bool_)
    return found
