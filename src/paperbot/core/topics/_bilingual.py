"""Bilingual expansion: a keyword or query term said in the other language.

The vocabulary's `[[concept]]` tables pair English and Chinese ways of saying
one idea (`repetition` ↔ `重复`, `low-rank` ↔ `低秩`). A text that says a
concept (all of it, or a concept covering most of it) is expanded with the
concept's other terms, weighted below the text itself: a Chinese summary
that says 重复 is evidence for "data repetition", weaker than the words.
Short texts are expanded fully; longer ones, whose words already say much
more than one concept, get lower weights and from `EXPAND_MAX_WORDS` none.
"""

from __future__ import annotations

from paperbot.core.topics._keys import is_cjk_token, needle, term_key
from paperbot.core.topics._vocabulary import Vocabulary

EXPANSION_WEIGHT = 0.8
"""Weight of a concept term when the concept says the whole (short) text."""
PARTIAL_EXPANSION_FACTOR = 0.5
"""Further factor when the concept says only part of the text: such a term
is supporting evidence, never a match on its own (`flash attention` is not
every paper about attention)."""
LONG_TEXT_FACTOR = 0.6
"""Further factor for texts of `LONG_TEXT_WORDS` words or more."""
LONG_TEXT_WORDS = 4
EXPAND_MAX_WORDS = 6
"""Texts this long (words; two CJK characters count as one) are not expanded."""
MIN_COVERED_SHARE = 0.5
"""A concept must cover at least this share of the text's characters."""


def expand_bilingual(text: str, vocabulary: Vocabulary) -> list[tuple[str, float]]:
    """`text` and its bilingual expansions as (term key, weight), best first.

    The text itself comes first with weight 1.0 (in `term_key` form); then
    the terms of every concept of `vocabulary` that the text says, weighted
    `EXPANSION_WEIGHT` or lower (see the module doc). Empty for text with
    nothing to match.
    """
    key = term_key(text)
    if not key:
        return []
    found: dict[str, float] = {key: 1.0}
    weight = _text_weight(key)
    for concept_keys, whole in _said_concepts(key, vocabulary):
        share = weight if whole else weight * PARTIAL_EXPANSION_FACTOR
        for other in concept_keys:
            if found.get(other, 0.0) < share:
                found[other] = share
    return sorted(found.items(), key=lambda item: -item[1])


def concept_parts(text: str, vocabulary: Vocabulary) -> tuple[set[str], list[set[str]]]:
    """How a text is said: the term keys that say all of it (its key and its
    whole concepts' terms), and per concept that says only a part of it, that
    concept's terms. A text is said where one of the first is, or where every
    part is: 约束解码 by "constrained ... decoding", never by 解码 alone (a
    paper about decoding does not say constrained decoding)."""
    key = term_key(text)
    if not key:
        return set(), []
    whole_terms = {key}
    parts: list[set[str]] = []
    for concept_keys, whole in _said_concepts(key, vocabulary):
        if whole:
            whole_terms.update(concept_keys)
        else:
            parts.append(set(concept_keys))
    return whole_terms, parts


def _said_concepts(key: str, vocabulary: Vocabulary) -> list[tuple[tuple[str, ...], bool]]:
    """The concepts a term key says, each with whether it says all of the key
    (a concept covering under `MIN_COVERED_SHARE` of it is left out; so is
    every concept of a text too long to expand)."""
    if _text_weight(key) == 0.0:
        return []
    padded = f" {key} "
    found: list[tuple[tuple[str, ...], bool]] = []
    for concept_keys in vocabulary.concept_keys:
        said = [k for k in concept_keys if needle(k) in padded]
        if not said:
            continue
        longest = max(said, key=len)
        if len(longest) >= MIN_COVERED_SHARE * len(key):
            found.append((concept_keys, longest == key))
    return found


def _text_weight(key: str) -> float:
    """How strongly a text of this length is expanded (0: not at all)."""
    words = sum(max(1, len(t) // 2) if is_cjk_token(t) else 1 for t in key.split())
    if words >= EXPAND_MAX_WORDS:
        return 0.0
    return EXPANSION_WEIGHT * (LONG_TEXT_FACTOR if words >= LONG_TEXT_WORDS else 1.0)
