"""Cutting a Chinese run of a query into known words: the vocabulary's
aliases and the words the summaries use.

A query writes no spaces between Chinese words, so `大模型训练会出现损失尖峰`
must be cut before its words can be looked up. Taking the longest alias
found anywhere first (模型训练) strands the 大 of 大模型; the cut here is
chosen over the whole run at once (dynamic programming): most characters
covered by known words, then the fewest pieces (the longest words), then
the commonest corpus words and the rarest (most specific) aliases. A
corpus n-gram holding an alias is no candidate: the vocabulary knows how
to cut it, and an alias carries its translations where a corpus word
carries only itself (数据去重 is 数据 + 去重, deduplication). So the
example becomes 大模型 + 训练 + 会出现 + 损失尖峰, and 训练数据重复 训练 +
数据重复 (data repetition) rather than 训练数据 + 重复.

A corpus word is a 2-4-character n-gram in at least `MIN_PIECE_DF`
summaries, neither starting nor ending with a particle (the lexicon
miner's rule); the caller passes its document frequency.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from dataclasses import dataclass

from paperbot.core.search._words import CJK_PARTICLES

# A piece the summaries say at least this often is a word of the corpus.
MIN_PIECE_DF = 2
MAX_PIECE = 4
# A corpus n-gram whose one-character extension in the run holds this share
# of its summaries is a fragment of that longer word (the lexicon miner's rule).
FRAGMENT_SHARE = 0.8

WordCount = Callable[[str], int]
# What a `WordCount` gives a character too common to name anything alone
# (的, 用, 会: in more than some 5% of the summaries, IDF below `IDF_FULL`;
# `_segment`): no count is kept of it, only that it is commoner than a word.
COMMON_CHAR = 1 << 62


@dataclass(frozen=True, slots=True)
class Piece:
    """One piece of a cut run: an alias, a corpus word, or a character no
    known word covers (`known` False)."""

    text: str
    alias: bool = False
    known: bool = True


def may_be_word(piece: str) -> bool:
    """A piece of two or more characters not starting or ending with a
    particle (模型的 is 模型 + 的), as the lexicon miner's candidates."""
    return len(piece) > 1 and piece[0] not in CJK_PARTICLES and piece[-1] not in CJK_PARTICLES


def cut_run(text: str, aliases: Collection[str], count: WordCount | None) -> list[Piece]:
    """The best cut of `text` into aliases, corpus words (when `count`, a
    summary document frequency, is given) and leftover characters."""
    longest = max((len(a) for a in aliases), default=0)
    n = len(text)
    # best[i]: (uncovered chars, pieces, log-df cost) of text[:i], and the cut.
    best: list[tuple[tuple[int, int, float], list[Piece]]] = [((0, 0, 0.0), [])]
    for end in range(1, n + 1):
        options = []
        for size in range(1, min(max(MAX_PIECE, longest), end) + 1):
            (miss, pieces, cost), cut = best[end - size]
            piece = text[end - size : end]
            found = _known(text, end - size, end, aliases, count)
            if found is None:
                if size > 1:
                    continue
                key = (miss + 1, pieces + 1, cost)
                options.append((key, [*cut, Piece(piece, known=False)]))
                continue
            is_alias, df = found
            # A corpus word is trusted by being common (a rare n-gram may be
            # a fragment); an alias is a word already, and of two the more
            # specific (rarer) says more about what is searched.
            specific = math.log(max(df, 1)) if is_alias else -math.log(max(df, 1))
            key = (miss, pieces + 1, cost + specific)
            options.append((key, [*cut, Piece(piece, alias=is_alias)]))
        best.append(min(options, key=lambda option: option[0]))
    return best[n][1]


def _known(
    text: str, start: int, end: int, aliases: Collection[str], count: WordCount | None
) -> tuple[bool, int] | None:
    """(is an alias, its document frequency) for the known word
    text[start:end], else None."""
    piece = text[start:end]
    if piece in aliases:
        return True, count(piece) if count is not None and len(piece) > 1 else 1
    if count is None or len(piece) > MAX_PIECE or not may_be_word(piece):
        return None
    if _holds_alias(piece, aliases):
        return None
    df = count(piece)
    if df < MIN_PIECE_DF:
        return None
    # A fragment of a longer word of the run (大模 of 大模型, 型训练 of
    # 模型训练): one character more is found nearly wherever it is.
    wider = [text[max(start - 1, 0) : end], text[start : end + 1]]
    if any(len(w) > len(piece) and count(w) >= FRAGMENT_SHARE * df for w in wider):
        return None
    return False, df


def _holds_alias(piece: str, aliases: Collection[str]) -> bool:
    """Whether an alias of two or more characters occurs in `piece`: its
    substrings looked up (a piece has at most `MAX_PIECE` characters, the
    table thousands of keys)."""
    size = len(piece)
    return any(piece[i:j] in aliases for i in range(size) for j in range(i + 2, size + 1))
