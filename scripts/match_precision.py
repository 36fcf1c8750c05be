"""Measures candidate precision mechanisms for topic matching (issue 10) on the
judged sets, the way docs/lexicon.md ("Precision: weak evidence ...") reports them:

    .venv/bin/python scripts/match_precision.py > /tmp/match_precision.md

Each mechanism picks, per topic, *doubted* matches: papers whose word evidence
is doubtful though their score passes. A doubted paper is decided by the
feedback like a weak match (kept when it holds `KEEP_FEEDBACK` of the topic's
profile, else near), against the profile the topic's clear matches make as
usual ("profile kept"), or with the doubted papers capped at the threshold
first, so that they leave the profile ("as `_sense` does"). Mechanisms:

- `title-only`: a title hit whose paper's summary (non-empty) holds no term of
  the topic nor any translation of one (its `[[concept]]` tables);
- `weak-title`: title evidence from weak aliases only, and no strong term of
  the topic (nor a translation) in the summary;
- `weak-title, clear elsewhere`: the same, and another vocabulary topic
  matches the paper clearly (score >= 2);

and one that changes the words instead: `contrast`, a summary mention that
follows a contrast marker in its clause (而不是, 而非, 无需, 不需要, 不依赖, 不同于,
摆脱, 取代, 替代, 绕过, 避免, 无须, 不用; "unlike", "without", "instead of",
"rather than" right before) is not counted.

It prints macro match precision / recall per set (as `bench quality`: main's
figures reproduce exactly), the judged papers each mechanism moves, and how
many papers it moves over all vocabulary topics. Nothing here is used at run
time: no mechanism measured was kept (docs/lexicon.md). About 10 s.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from paperbot.bench.judged import HELD_OUT_TOPICS_FILE, load_judged_topics
from paperbot.bench.shipped import shipped_corpus_app
from paperbot.clock import utc_now
from paperbot.core.topics import _matching as mt
from paperbot.core.topics._feedback import KEEP_FEEDBACK, STRONG_SCORE, feedback, refine
from paperbot.core.topics._keys import needle
from paperbot.core.topics._sense import _concept, other_sense

Arr = np.ndarray[Any, Any]
Doubt = Callable[[Any, list[Any], Any], set[int]]
CONTRAST: tuple[str, ...] = ("而不是", "而非", "无需", "不需要", "不依赖", "不同于", "摆脱")
CONTRAST += ("取代", "替代", "绕过", "避免", "无须", "不用")
CONTRAST_EN = ("unlike", "without", "instead of", "rather than")


class _Context:
    def __init__(self, vocabulary: Any, protected: frozenset[str], corpus: Any) -> None:
        self.vocabulary, self.protected, self.corpus = vocabulary, protected, corpus
        self.clear = {
            t.key: mt._scores(mt._counted_hits(t, corpus, protected, vocabulary), len(corpus))
            >= STRONG_SCORE
            for t in vocabulary.topics
        }

    def translations(self, keys: set[str]) -> set[str]:
        found: set[str] = set()
        for key in keys:
            found |= _concept(key, self.vocabulary)
        return found

    def summary_holds(self, position: int, keys: set[str]) -> bool:
        doc = self.corpus.summary.docs[position]
        return any(needle(k) in doc for k in keys)

    def clear_elsewhere(self, topic: Any, position: int) -> bool:
        return any(c[position] for key, c in self.clear.items() if key != topic.key)


def _title_only(ctx: _Context, _topic: Any, placed: list[Any]) -> set[int]:
    keys = ctx.translations({term.key for term, _, _ in placed})
    titled = {int(p) for _, _, title in placed for p in title}
    return {
        p for p in titled if ctx.corpus.summary.docs[p].strip() and not ctx.summary_holds(p, keys)
    }


def _weak_title(ctx: _Context, topic: Any, placed: list[Any], elsewhere: bool = False) -> set[int]:
    strong = ctx.translations({term.key for term, _, _ in placed if not term.weak})
    weak_titles = {int(p) for term, _, title in placed if term.weak for p in title}
    strong_titles = {int(p) for term, _, title in placed if not term.weak for p in title}
    return {
        p
        for p in weak_titles - strong_titles
        if not ctx.summary_holds(p, strong) and (not elsewhere or ctx.clear_elsewhere(topic, p))
    }


def _matches(ctx: _Context, topic: Any, doubt: Doubt | None, keep_profile: bool) -> set[int]:
    """`match_topic`'s matches, with `doubt`'s papers decided by the feedback."""
    corpus = ctx.corpus
    hits = mt._counted_hits(topic, corpus, ctx.protected, ctx.vocabulary)
    score = mt._scores(hits, len(corpus))
    placed = mt._placed(hits)
    other = other_sense(topic, placed, corpus, ctx.vocabulary)
    doubted = set() if doubt is None else doubt(ctx, topic, placed)
    doubted = {p for p in doubted - set(other.tolist()) if score[p] >= mt.RELEVANCE_THRESHOLD}
    extra = np.array(sorted(doubted), dtype=np.intp)
    said = score[other]
    score[other] = mt.RELEVANCE_THRESHOLD
    extra_said = score[extra]
    if not keep_profile:
        score[extra] = mt.RELEVANCE_THRESHOLD
    matched = score >= mt.RELEVANCE_THRESHOLD
    refined = refine(score, corpus, mt.RELEVANCE_THRESHOLD)
    kept = ~np.isin(other, refined.dropped)
    score[other[kept]] = said[kept]
    score[extra] = extra_said
    dropped = refined.dropped
    if len(extra) and refined.weights:
        values = feedback(corpus, extra, refined.weights)
        dropped = np.union1d(dropped, extra[values < KEEP_FEEDBACK]).astype(np.intp)
    matched[refined.accepted] = True
    matched[dropped] = False
    return {int(corpus.ids[p]) for p in np.flatnonzero(matched)}


def _contrasted(doc: str, at: int) -> bool:
    """The mention at `at` of a padded summary key follows a contrast marker
    in its clause (punctuation is a space in a key: a CJK run is a clause piece)."""
    start = doc.rfind(" ", 0, at)
    run = doc[start + 1 : at]
    if run:
        return any(m in run for m in CONTRAST)
    before = doc[:start].rstrip()
    previous = before[before.rfind(" ") + 1 :]
    return any(previous.endswith(m) for m in CONTRAST) or any(
        before.endswith(f" {w}") for w in CONTRAST_EN
    )


@contextmanager
def _contrast_dropped() -> Iterator[None]:
    plain = mt._summary_weights

    def weights(key: str, data: Any) -> tuple[Arr, Arr]:
        positions, found = plain(key, data)
        seek = needle(key)
        shift = 1 if seek.startswith(" ") else 0
        keep = np.ones(len(positions), dtype=np.bool_)
        for i, p in enumerate(positions.tolist()):
            doc, at, every = data.docs[p], data.docs[p].find(seek), True
            while at >= 0 and every:
                every = _contrasted(doc, at + shift)
                at = doc.find(seek, at + 1)
            keep[i] = not every
        return positions[keep], found[keep]

    mt._summary_weights = weights
    try:
        yield
    finally:
        mt._summary_weights = plain


def _macro(sets: dict[str, list[tuple[Any, set[int]]]], found: Callable[[Any], set[int]]) -> str:
    cells = []
    for judged in sets.values():
        precision, recall = [], []
        for topic, relevant in judged:
            got = found(topic)
            precision.append(len(got & relevant) / len(got) if got else 0.0)
            recall.append(len(got & relevant) / len(relevant))
        cells.append(f"{np.mean(precision):.4f} / {np.mean(recall):.4f}")
    return " | ".join(cells)


def _moved(
    ctx: _Context,
    sets: dict[str, list[tuple[Any, set[int]]]],
    found: Callable[[Any], set[int]],
    base: Callable[[Any], set[int]],
    titles: dict[int, str],
) -> Iterator[str]:
    for name, judged in sets.items():
        for topic, relevant in judged:
            for pid in sorted(base(topic) ^ found(topic)):
                verdict = "relevant" if pid in relevant else "unrelated"
                change = "lost" if pid in base(topic) else "gained"
                yield f"- {name}, {topic.label}: {change} {verdict} *{titles[pid][:70]}*"
    changed = sum(len(base(t) ^ found(t)) for t in ctx.vocabulary.topics)
    yield f"- all {len(ctx.vocabulary.topics)} vocabulary topics: {changed} matches changed"


def _report(
    ctx: _Context, sets: dict[str, list[tuple[Any, set[int]]]], titles: dict[int, str]
) -> None:
    base = _cached(lambda t: _matches(ctx, t, None, True))
    _out("| mechanism | tuned P / R | held-out P / R |\n|---|---|---|")
    _out(f"| main | {_macro(sets, base)} |")
    rows: list[tuple[str, Callable[[Any], set[int]]]] = []
    doubts: Sequence[tuple[str, Doubt]] = (
        ("title-only", _title_only),
        ("weak-title", _weak_title),
        ("weak-title, clear elsewhere", lambda c, t, p: _weak_title(c, t, p, elsewhere=True)),
    )
    for name, doubt in doubts:
        for keep, how in ((True, "profile kept"), (False, "as `_sense` does")):
            found = _cached(_deciding(ctx, doubt, keep))
            _out(f"| {name}, {how} | {_macro(sets, found)} |")
            rows.append((f"{name}, {how}", found))
    contrast = _cached(lambda t: _matches(ctx, t, None, True))
    everything = [t for judged in sets.values() for t, _ in judged] + list(ctx.vocabulary.topics)
    for topic in everything:
        base(topic)
    with _contrast_dropped():
        for topic in everything:
            contrast(topic)
    _out(f"| contrast | {_macro(sets, contrast)} |")
    rows.append(("contrast", contrast))
    for name, found in rows:
        _out(f"\n{name}:")
        for line in _moved(ctx, sets, found, base, titles):
            _out(line)


def _deciding(ctx: _Context, doubt: Doubt, keep: bool) -> Callable[[Any], set[int]]:
    return lambda topic: _matches(ctx, topic, doubt, keep)


def _out(text: str) -> None:
    sys.stdout.write(f"{text}\n")


def _cached(function: Callable[[Any], set[int]]) -> Callable[[Any], set[int]]:
    memo: dict[tuple[str, str], set[int]] = {}

    def found(topic: Any) -> set[int]:
        key = (topic.kind, topic.key)
        if key not in memo:
            memo[key] = function(topic)
        return memo[key]

    return found


async def _main() -> None:
    async with shipped_corpus_app("match-precision", utc_now()) as app:
        _, corpus = await app.topics.corpus()
        papers = await app.corpus.list_papers()
        ids = {p.title: p.id for p in papers}
        sets = {
            name: [
                (app.topics.resolve(t.query), {ids[title] for title in t.titles})
                for t in load_judged_topics(*files)
            ]
            for name, files in (("tuned", ()), ("held-out", (HELD_OUT_TOPICS_FILE,)))
        }
        ctx = _Context(app.topics.vocabulary, app.topics._protected, corpus)
        _report(ctx, sets, {p.id: p.title for p in papers})


if __name__ == "__main__":
    asyncio.run(_main())
