"""Mine candidate terms for the bilingual vocabulary from the corpus pages.

`paperbot bench lexicon [--corpus DIR] [--vocabulary FILE] [--min-df N]
[--all] [--json]` lists the Chinese terms of the summaries and the English
words and phrases of titles and summaries that at least N papers say (see
`lexicon_mining`), each with its document frequency and whether the
vocabulary already has it; Chinese terms also show the English title words
seen most with them. Not a speed benchmark: a reproducible step for growing
the `[[concept]]` tables from the words the pages really use.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from paperbot.argtypes import positive_int
from paperbot.bench.lexicon_mining import (
    Candidate,
    Paper,
    chinese_candidates,
    english_candidates,
)
from paperbot.config import BUNDLED_CORPUS, BUNDLED_TOPICS
from paperbot.core.corpus import decode, merge_entries, parse_text
from paperbot.core.models import Entry
from paperbot.core.topics import Vocabulary, parse_vocabulary, term_key

DEFAULT_MIN_DF = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", type=Path, default=BUNDLED_CORPUS, help="folder of pages")
    parser.add_argument(
        "--vocabulary", type=Path, default=BUNDLED_TOPICS, help="topics.toml to compare with"
    )
    parser.add_argument(
        "--min-df", type=positive_int, default=DEFAULT_MIN_DF, help="least papers per term"
    )
    parser.add_argument(
        "--all", action="store_true", help="also list terms the vocabulary already has"
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    papers = corpus_papers(args.corpus)
    vocabulary = parse_vocabulary(args.vocabulary.read_text(encoding="utf-8"))
    known = known_terms(vocabulary)
    listed: dict[str, list[dict[str, Any]]] = {}
    for name, found in (
        ("chinese", chinese_candidates(papers, args.min_df)),
        ("english", english_candidates(papers, args.min_df)),
    ):
        rows = [_row(c, term_key(c.term) in known) for c in found]
        listed[name] = [r for r in rows if args.all or not r["known"]]
    return {"papers": len(papers), "min_df": args.min_df, **listed}


def corpus_papers(folder: Path) -> list[Paper]:
    """Every paper of the pages in `folder` (merged as a load merges them)."""
    entries: list[Entry] = []
    for path in sorted(folder.glob("*.txt")):
        text = decode(path.read_bytes(), path.name)
        if isinstance(text, str):
            entries.extend(parse_text(text, path.name, "预训练").entries)
    return [Paper(r.title, " ".join(r.summaries)) for r in merge_entries(entries)]


def known_terms(vocabulary: Vocabulary) -> frozenset[str]:
    """The keys of every concept term and topic name or alias."""
    topics = {term_key(norm) for norm, _topic, _written in vocabulary.surfaces}
    return frozenset(topics | {k for keys in vocabulary.concept_keys for k in keys})


def _row(candidate: Candidate, known: bool) -> dict[str, Any]:
    row: dict[str, Any] = {"term": candidate.term, "df": candidate.df, "known": known}
    if candidate.with_english:
        row["with_english"] = [f"{w}×{n}" for w, n in candidate.with_english]
    return row


def render(result: dict[str, Any]) -> str:
    lines = [f"{result['papers']} papers, terms in at least {result['min_df']}"]
    for name in ("chinese", "english"):
        lines.append(f"\n{name} ({len(result[name])})")
        for row in result[name]:
            known = " (known)" if row["known"] else ""
            pairs = "  " + " ".join(row.get("with_english", ()))
            lines.append(f"{row['df']:4d}  {row['term']}{known}{pairs.rstrip()}")
    return "\n".join(lines)
