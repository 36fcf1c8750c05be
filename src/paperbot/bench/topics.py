"""Match every vocabulary topic against N synthetic papers.

Baseline in the same process: the straightforward matcher, one compiled
regex per topic (its names and aliases, lower-cased, with word boundaries)
searched through every paper's lower-cased title and summary. It does less
than we do (no traditional->simplified, no inflection, no typos), so it is
a floor for a scan-everything approach, not an equivalent.
`match_all_vs_baseline` is our time over the baseline's (lower is better).
`build_s` is the one-off normalisation per corpus version; `autocomplete_ms`
is the mean /subscribe suggestion time over sample inputs.

Incremental (what a page arriving costs): `append_1pct_s` extends the corpus
by 1% more papers and every vocabulary topic's matches by the new papers
alone, decided against the topic's frozen feedback profile
(`extend_matches`; `append_vs_build` over `build_s` plus `match_all_s`, the
full work it replaces). Once the papers added since pass `REFRESH_SHARE`
(10%) the topics are matched afresh over the whole corpus: `refresh_1pct_s`
is that append (`refresh_vs_build`), paid once per 10% added. What freezing
costs in quality: `append_agreement`, the (topic, paper) matches the
extension shares with matching the extended corpus afresh, over their
union, and `append_changed_matches`, how many differ. `encode_s`/`decode_s`
turn the corpus and matches into the stored arrays and back (a restart's
CPU instead of the build).
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path
from typing import Any

from paperbot.argtypes import positive_int
from paperbot.bench.memory import peak_rss_mb
from paperbot.bench.synthetic import synthetic_papers
from paperbot.config import BUNDLED_TOPICS
from paperbot.core.topics import (
    Topic,
    TopicCorpus,
    Vocabulary,
    append_corpus,
    build_corpus,
    corpus_arrays,
    corpus_from_arrays,
    extend_matches,
    match_topic,
    matches_from_arrays,
    parse_vocabulary,
    suggest,
)

DEFAULT_VOCABULARY = BUNDLED_TOPICS
SAMPLE_INPUTS = ("scal", "缩放", "speculativ", "kv cache", "GaLore", "對齊", "", "quantisation")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--papers", type=positive_int, default=100_000, help="corpus size")
    parser.add_argument(
        "--vocabulary", type=Path, default=DEFAULT_VOCABULARY, help="topics.toml to use"
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    vocabulary = parse_vocabulary(args.vocabulary.read_text(encoding="utf-8"))
    extra = max(1, args.papers // 100)
    papers = synthetic_papers(args.papers + extra)
    papers, added = papers[: args.papers], papers[args.papers :]
    rss_before = peak_rss_mb()

    start = time.perf_counter()
    corpus = build_corpus((i, title, summary) for i, (title, summary) in enumerate(papers, 1))
    build_s = time.perf_counter() - start
    rss_corpus = peak_rss_mb() - rss_before

    match_s, worst_s, matched = _match_all(vocabulary, corpus)
    incremental = _incremental(vocabulary, corpus, added)
    incremental["append_vs_build"] = incremental["append_1pct_s"] / (build_s + match_s)
    incremental["refresh_vs_build"] = incremental["refresh_1pct_s"] / (build_s + match_s)
    keyword_s = _timed_keywords(vocabulary, corpus)
    baseline_s, baseline_matched = _baseline(vocabulary, papers)
    autocomplete_ms = _autocomplete_ms(vocabulary)
    return {
        "papers": len(corpus),
        "topics": len(vocabulary),
        "build_s": build_s,
        "match_all_s": match_s,
        "match_topic_worst_ms": worst_s * 1000,
        "match_keyword_mean_ms": keyword_s * 1000,
        "baseline_match_all_s": baseline_s,
        "match_all_vs_baseline": match_s / baseline_s,
        "topic_hits": matched,
        "baseline_topic_hits": baseline_matched,
        "autocomplete_ms": autocomplete_ms,
        **incremental,
        "corpus_rss_mb": rss_corpus,
        "peak_rss_mb": peak_rss_mb(),
    }


def _match_all(vocabulary: Vocabulary, corpus: TopicCorpus) -> tuple[float, float, int]:
    protected = vocabulary.term_words()
    worst = 0.0
    hits = 0
    start = time.perf_counter()
    for topic in vocabulary.topics:
        began = time.perf_counter()
        hits += len(match_topic(topic, corpus, protected, vocabulary))
        worst = max(worst, time.perf_counter() - began)
    return time.perf_counter() - start, worst, hits


def _incremental(
    vocabulary: Vocabulary, corpus: TopicCorpus, added: list[tuple[str, str]]
) -> dict[str, float]:
    protected = vocabulary.term_words()
    matches = {t.key: match_topic(t, corpus, protected, vocabulary) for t in vocabulary.topics}
    first = len(corpus) + 1
    rows = [(i, t, s) for i, (t, s) in enumerate(added, first)]
    start = time.perf_counter()
    appended = append_corpus(corpus, rows)
    assert appended is not None  # ids follow the corpus's
    extended, part = appended
    merged = {
        t.key: extend_matches(matches[t.key], t, extended, part, protected, vocabulary)
        for t in vocabulary.topics
    }
    append_s = time.perf_counter() - start
    start = time.perf_counter()
    appended = append_corpus(corpus, rows)
    assert appended is not None
    fresh = {t.key: match_topic(t, appended[0], protected, vocabulary) for t in vocabulary.topics}
    refresh_s = time.perf_counter() - start
    ours = {(key, p) for key, m in merged.items() for p in m.ids.tolist()}
    theirs = {(key, p) for key, m in fresh.items() for p in m.ids.tolist()}
    start = time.perf_counter()
    arrays = dict(corpus_arrays(corpus, matches, "bench"))
    encode_s = time.perf_counter() - start
    start = time.perf_counter()
    corpus_from_arrays(arrays)
    matches_from_arrays(arrays, "bench")
    decode_s = time.perf_counter() - start
    return {
        "append_1pct_s": append_s,
        "refresh_1pct_s": refresh_s,
        "appended_topic_hits": float(len(ours)),
        "append_agreement": len(ours & theirs) / max(1, len(ours | theirs)),
        "append_changed_matches": float(len(ours ^ theirs)),
        "encode_s": encode_s,
        "decode_s": decode_s,
        "stored_mb": sum(a.nbytes for a in arrays.values()) / 1e6,
    }


def _timed_keywords(vocabulary: Vocabulary, corpus: TopicCorpus) -> float:
    keywords = ("learning", "GaLore", "扩散", "flash attention", "token")
    start = time.perf_counter()
    for keyword in keywords:
        match_topic(Topic.keyword(keyword), corpus, vocabulary=vocabulary)
    return (time.perf_counter() - start) / len(keywords)


def _baseline(vocabulary: Vocabulary, papers: list[tuple[str, str]]) -> tuple[float, int]:
    start = time.perf_counter()
    texts = [f"{title}\n{summary}".lower() for title, summary in papers]
    hits = 0
    for topic in vocabulary.topics:
        alternatives = "|".join(re.escape(term.lower()) for term in topic.terms)
        pattern = re.compile(rf"(?<![a-z0-9])(?:{alternatives})(?![a-z0-9])")
        hits += sum(1 for text in texts if pattern.search(text))
    return time.perf_counter() - start, hits


def _autocomplete_ms(vocabulary: Vocabulary, rounds: int = 20) -> float:
    start = time.perf_counter()
    for _ in range(rounds):
        for text in SAMPLE_INPUTS:
            suggest(text, vocabulary)
    return (time.perf_counter() - start) * 1000 / (rounds * len(SAMPLE_INPUTS))
