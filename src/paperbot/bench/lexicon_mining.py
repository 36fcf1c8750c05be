"""Candidate terms for the bilingual `[[concept]]` tables, mined from papers.

Pure and deterministic: the same papers give the same list. Chinese terms are
character n-grams (2-4 characters inside one CJK run of a summary) kept by
document frequency and boundary statistics, the usual way to find words
without a segmenter: a word is free on both sides (many different characters
or a run edge next to it: branching entropy), and is not merely the inside of
a longer n-gram that occurs nearly every time it does. English candidates are
the Latin words and two-word phrases of titles and of the English written
inside summaries. Each Chinese candidate also lists the English title words
seen most with it in the same paper, to suggest a pair; the pairing itself is
a person's decision by meaning.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from paperbot.core.search import FUNCTION_WORDS, STOP_WORDS
from paperbot.core.text import fold_word, is_cjk_run, latin_words, normalize, tokens

MIN_GRAM = 2
MAX_GRAM = 4
EDGE = "\x00"
"""Neighbour of an n-gram at a run edge; every edge counts as a new
neighbour, so a run edge always adds freedom."""
MIN_ENTROPY = 1.0
"""Least left and right branching entropy (nats) of a Chinese candidate."""
CLOSURE = 0.8
"""An n-gram inside a longer candidate holding this share of its documents
is that longer word's piece, not a word of its own (网页 of 网页数据 is kept
only when it also stands alone)."""
# Grammar characters no term starts or ends with (的, 了, 和 ... as in the
# search's Chinese particles) plus a few more of the same kind.
EDGE_CHARS = frozenset(
    "在中的了是和与及或对把被让从向于将就都也而其该此并以为即等个这那上下所可能会"
)
COOCCUR_SHOWN = 3


@dataclass(frozen=True, slots=True)
class Paper:
    """What the mining reads of one paper."""

    title: str
    summary: str


@dataclass(frozen=True, slots=True)
class Candidate:
    """One mined term with its document frequency (papers that say it)."""

    term: str
    df: int
    left_entropy: float = 0.0
    right_entropy: float = 0.0
    with_english: tuple[tuple[str, int], ...] = ()


def chinese_candidates(papers: Sequence[Paper], min_df: int) -> list[Candidate]:
    """Chinese n-grams of the summaries that behave like words, most frequent first."""
    df: Counter[str] = Counter()
    left: defaultdict[str, Counter[str]] = defaultdict(Counter)
    right: defaultdict[str, Counter[str]] = defaultdict(Counter)
    docs: list[set[str]] = []
    for paper in papers:
        seen: set[str] = set()
        for run in _cjk_runs(paper.summary):
            for gram, before, after in _grams(run):
                seen.add(gram)
                left[gram][before] += 1
                right[gram][after] += 1
        df.update(seen)
        docs.append(seen)
    frequent = {g: n for g, n in df.items() if n >= min_df and g[0] not in EDGE_CHARS}
    frequent = {g: n for g, n in frequent.items() if g[-1] not in EDGE_CHARS}
    kept = {
        g: (_entropy(left[g]), _entropy(right[g]))
        for g in frequent
        if min(_entropy(left[g]), _entropy(right[g])) >= MIN_ENTROPY
    }
    kept = {g: e for g, e in kept.items() if not _is_piece(g, frequent[g], kept, frequent)}
    english = [_title_words(p.title) for p in papers]
    found = [
        Candidate(g, frequent[g], e[0], e[1], _cooccurring(g, docs, english))
        for g, e in kept.items()
    ]
    return sorted(found, key=lambda c: (-c.df, c.term))


def english_candidates(papers: Sequence[Paper], min_df: int) -> list[Candidate]:
    """Latin words (folded) and two-word phrases of titles and of the English
    inside summaries, without stop and function words, most frequent first."""
    df: Counter[str] = Counter()
    for paper in papers:
        seen: set[str] = set()
        for text in (paper.title, paper.summary):
            words = [fold_word(w) for w in latin_words(normalize(text))]
            content = [w if _is_content(w) else "" for w in words]
            seen.update(w for w in content if w)
            seen.update(f"{a} {b}" for a, b in pairwise(content) if a and b)
        df.update(seen)
    found = [Candidate(t, n) for t, n in df.items() if n >= min_df]
    return sorted(found, key=lambda c: (-c.df, c.term))


def _cjk_runs(text: str) -> list[str]:
    return [t for t in tokens(normalize(text)) if is_cjk_run(t)]


def _grams(run: str) -> Iterable[tuple[str, str, str]]:
    """Every 2-4 character n-gram of a run with its left and right neighbour."""
    for size in range(MIN_GRAM, MAX_GRAM + 1):
        for start in range(len(run) - size + 1):
            before = run[start - 1] if start else EDGE
            after = run[start + size] if start + size < len(run) else EDGE
            yield run[start : start + size], before, after


def _entropy(neighbours: Counter[str]) -> float:
    """Branching entropy; each run edge is a distinct neighbour."""
    edges = neighbours.get(EDGE, 0)
    counts = [n for c, n in neighbours.items() if c != EDGE] + [1] * edges
    total = sum(counts)
    return -sum(n / total * math.log(n / total) for n in counts)


def _is_piece(
    gram: str, df: int, kept: dict[str, tuple[float, float]], frequent: dict[str, int]
) -> bool:
    """True when a longer kept n-gram holding `gram` covers most of its papers."""
    longer = (k for k in kept if len(k) > len(gram) and gram in k)
    return any(frequent[k] >= CLOSURE * df for k in longer)


def _title_words(title: str) -> set[str]:
    return {fold_word(w) for w in latin_words(normalize(title)) if _is_content(fold_word(w))}


def _is_content(word: str) -> bool:
    return len(word) > 2 and not word.isdigit() and word not in STOP_WORDS | FUNCTION_WORDS


def _cooccurring(
    gram: str, docs: Sequence[set[str]], english: Sequence[set[str]]
) -> tuple[tuple[str, int], ...]:
    """English title words most often in the same papers as `gram` (at least
    twice), ranked by the share of their own papers that say `gram`."""
    together: Counter[str] = Counter()
    for grams, words in zip(docs, english, strict=True):
        if gram in grams:
            together.update(words)
    alone = Counter(w for words in english for w in words)
    ranked = sorted(
        ((w, n) for w, n in together.items() if n >= 2),
        key=lambda item: (-item[1] / alone[item[0]], -item[1], item[0]),
    )
    return tuple(ranked[:COOCCUR_SHOWN])
