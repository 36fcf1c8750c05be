"""Measures pseudo-relevance feedback (RM3-style) for long search queries on
the judged sets, the way docs/lexicon.md ("Pseudo-relevance feedback")
reports it:

    .venv/bin/python scripts/search_prf.py '[{"off": true}, {"K": 10, "W": 0.5, "k": 5}]'

Each variant is a JSON object over the defaults in `DEFAULTS`; the first is
the baseline the others' moved queries are listed against (`{"off": true}`
is main's search unchanged). Nothing here is part of paperbot: the search's
`fused_order` is wrapped in this process only.

The feedback, for a query of at least `min_terms` terms: stage 2's order
(already fused with the cosine) is taken as given; the candidates' texts
are the cosine's own vectors (stemmed Latin words and CJK bigrams, TF-IDF,
`_fusion`), each normalised; the feedback vector is the sum of the first
`k` candidates' vectors (`decay`: weighted 1/rank), cut to its `m` heaviest
grams (`cjk_fb`: CJK bigrams only, the bridge from an English query to the
Chinese summaries; `no_q`: the query's own grams left out); the query
vector, normalised, is mixed with it, (1 - lam) q + lam f; every candidate
is scored by its dot product with that; and the two orders are fused by
reciprocal rank, 1 / (K + rank) + W / (K + feedback rank). `Ws1` instead
fuses stage 1's order in the same way (no feedback).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paperbot.bench.judged import HELD_OUT_QUERIES_FILE, load_judged_queries
from paperbot.bench.shipped import shipped_corpus_app
from paperbot.clock import utc_now
from paperbot.core.search import _fusion, _rank
from paperbot.core.search._index import SearchIndex
from paperbot.core.search._match import FieldText
from paperbot.core.search._query import Term

DEFAULTS: dict[str, Any] = {
    "k": 3,
    "m": 30,
    "lam": 0.5,
    "W": 0.3,
    "K": 60,
    "min_terms": 4,
    "decay": False,
    "cjk_fb": False,
    "no_q": False,
    "off": False,
    "Ws1": 0.0,
}
P: dict[str, Any] = dict(DEFAULTS)
STAGE1: dict[int, float] = {}


def _fuse(base: Sequence[int], scores: NDArray[np.float64], weight: float) -> list[int]:
    n = len(base)
    ranks = 1.0 / (P["K"] + 1 + np.arange(n, dtype=np.float64))
    fused = np.zeros(n)
    fused[np.array(base)] = ranks
    fused[np.argsort(-scores, kind="stable")] += weight * ranks
    order: list[int] = np.argsort(-fused, kind="stable").tolist()
    return order


def _feedback(
    index: SearchIndex,
    positions: Sequence[int],
    terms: Sequence[Term],
    weights: Sequence[float],
    base: Sequence[int],
) -> list[int]:
    fields = [(FieldText(index.titles[p]), FieldText(index.summaries[p])) for p in positions]
    texts = [t.text + " " + s.text for t, s in fields]
    keys, docs, tf = _fusion._paper_grams(texts, [t.words + s.words for t, s in fields])
    if len(keys) == 0:
        return list(base)
    unique, inverse = np.unique(keys, return_inverse=True)
    w = (1.0 + np.log(tf)) * _fusion._idf(index, unique)[inverse]
    n = len(texts)
    norms = np.sqrt(np.bincount(docs, weights=w * w, minlength=n))
    wn = w / np.maximum(norms[docs], 1e-12)
    k = min(P["k"], n)
    doc_weight = np.zeros(n)
    doc_weight[np.array(base[:k])] = 1.0 / (1 + np.arange(k)) if P["decay"] else 1.0
    summed = np.bincount(inverse, weights=wn * doc_weight[docs], minlength=len(unique))
    fb: NDArray[np.float64] = summed.astype(np.float64)
    query = _fusion.query_grams(terms, weights)
    qkeys = np.fromiter(query, dtype=np.int64, count=len(query))
    qweights = np.fromiter(query.values(), dtype=np.float64, count=len(query))
    if P["cjk_fb"]:
        fb[(unique & _fusion._TAG_MASK) != _fusion._BIGRAM_TAG] = 0.0
    if P["no_q"]:
        fb[np.isin(unique, qkeys)] = 0.0
    if P["m"] and np.count_nonzero(fb) > P["m"]:
        fb[fb < np.sort(fb)[-P["m"]]] = 0.0
    fb /= max(float(np.linalg.norm(fb)), 1e-12)
    qv = np.zeros(len(unique))
    if len(qkeys):
        at = np.minimum(np.searchsorted(unique, qkeys), len(unique) - 1)
        found = unique[at] == qkeys
        qv[at[found]] = qweights[found]
        qv /= max(float(np.sqrt((qweights * qweights).sum())), 1e-12)
    expanded = (1 - P["lam"]) * qv + P["lam"] * fb
    dot = np.bincount(docs, weights=expanded[inverse] * wn, minlength=n).astype(np.float64)
    return _fuse(base, dot, P["W"])


def install() -> None:
    plain_order, plain_blend = _fusion.fused_order, _rank._blended

    def blended(
        stage2: Sequence[float], ids: Sequence[int], stage1: Sequence[float]
    ) -> list[tuple[float, int, int]]:
        STAGE1.clear()
        STAGE1.update(zip(ids, stage1, strict=True))
        return plain_blend(stage2, ids, stage1)

    def fused_order(
        index: SearchIndex,
        positions: Sequence[int],
        terms: Sequence[Term],
        weights: Sequence[float],
        fields: Sequence[tuple[FieldText, FieldText]] | None = None,
    ) -> list[int]:
        base = plain_order(index, positions, terms, weights, fields)
        if len(terms) < P["min_terms"] or len(positions) < 2:
            return base
        if P["Ws1"]:
            s1 = np.array([STAGE1[int(index.ids[p])] for p in positions], dtype=np.float64)
            base = _fuse(base, s1, P["Ws1"])
        if P["off"]:
            return base
        return _feedback(index, positions, terms, weights, base)

    # The ranker's own names, rebound in this process only.
    _rank._blended = blended
    setattr(_rank, "fused_order", fused_order)  # noqa: B010


def _figures(ranks: Sequence[int | None]) -> str:
    hits = sum(1 for r in ranks if r is not None and r <= 5) / len(ranks)
    mrr = sum(1 / r for r in ranks if r is not None) / len(ranks)
    return f"{hits:.2f} / {mrr:.3f}"


async def main(variants: Sequence[dict[str, Any]]) -> None:
    install()
    held_out = load_judged_queries(HELD_OUT_QUERIES_FILE)
    sets = (("tuned", load_judged_queries()), ("held-out", held_out))
    async with shipped_corpus_app("prf", utc_now()) as app:
        ids = {p.title: p.id for p in await app.corpus.list_papers()}
        first: dict[tuple[str, str], int | None] = {}
        for variant in variants:
            P.clear()
            P.update(DEFAULTS, **variant)
            ranks: dict[tuple[str, str], int | None] = {}
            sys.stdout.write(f"{json.dumps(variant)}\n")
            for name, queries in sets:
                by_kind: dict[str, list[int | None]] = {}
                for q in queries:
                    expected = {ids[t] for t in q.expected}
                    hits = (await app.search.search(q.query, limit=10)).hits
                    rank = next((i + 1 for i, h in enumerate(hits) if h.paper.id in expected), None)
                    ranks[(name, q.query)] = rank
                    by_kind.setdefault(q.kind, []).append(rank)
                every = [r for kind in by_kind.values() for r in kind]
                kinds = " | ".join(f"{k} {_figures(v)}" for k, v in sorted(by_kind.items()))
                sys.stdout.write(f"  {name}: all {_figures(every)} | {kinds}\n")
            for key, rank in ranks.items():
                if first and first[key] != rank:
                    sys.stdout.write(f"    {key[0]} {first[key]} -> {rank}: {key[1]}\n")
            first = first or ranks


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1]) if len(sys.argv) > 1 else [{"off": True}]))
