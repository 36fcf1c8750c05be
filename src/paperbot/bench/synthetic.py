"""Synthetic corpora recombined from the real digest pages, for benchmarks.

Titles are recombined from real title words and summaries from real summary
clauses, so character statistics (CJK/Latin mix, lengths) match the corpus.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

from paperbot.config import BUNDLED_CORPUS
from paperbot.core.corpus import CorpusLimits, decode, merge_entries, parse_text

_CLAUSE_END = re.compile(r"(?<=[，。；：！？])")
VENUES = (("NeurIPS", 2023), ("NeurIPS", 2025), ("ICML", 2025), ("ICML", 2026), ("ICLR", 2026))


#: Synthetic pages hold up to 20,000+ papers each: lift the per-page limits
#: that guard the bot against hostile pages.
BENCH_LIMITS = CorpusLimits(
    max_file_bytes=1 << 40, max_entries_per_file=1 << 40, max_summary_chars=100_000
)


@dataclass(frozen=True, slots=True)
class Material:
    title_words: tuple[str, ...]
    title_lengths: tuple[int, ...]
    clauses: tuple[str, ...]
    clause_counts: tuple[int, ...]


def real_material(corpus: Path = BUNDLED_CORPUS) -> Material:
    """Words, clauses and their length distributions from the real pages."""
    files = []
    for path in sorted(corpus.glob("*.txt")):
        text = decode(path.read_bytes(), path.name)
        if isinstance(text, str):
            files.append(parse_text(text, path.name, "预训练"))
    records = merge_entries(e for f in files for e in f.entries)
    words = [w for r in records for w in r.title.split()]
    summaries = [s for r in records for s in r.summaries]
    clauses = [c for s in summaries for c in _CLAUSE_END.split(s) if c]
    return Material(
        title_words=tuple(words),
        title_lengths=tuple(len(r.title.split()) for r in records),
        clauses=tuple(clauses),
        clause_counts=tuple(max(1, len(_CLAUSE_END.split(s)) - 1) for s in summaries),
    )


def synthetic_papers(
    n: int, seed: int = 7, material: Material | None = None
) -> list[tuple[str, str]]:
    """n distinct (title, summary) pairs; deterministic for a seed."""
    material = material or real_material()
    rng = random.Random(seed)
    papers = []
    for i in range(n):
        words = rng.choices(material.title_words, k=rng.choice(material.title_lengths))
        # A serial keeps titles unique; real titles also carry odd tokens.
        title = " ".join([*words, f"S{i}"])
        summary = "".join(rng.choices(material.clauses, k=rng.choice(material.clause_counts)))
        papers.append((title, summary))
    return papers


def write_corpus(folder: Path, papers: list[tuple[str, str]]) -> list[Path]:
    """Write papers as line-layout pages, spread across the real venues."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, (venue, year) in enumerate(VENUES):
        chunk = papers[index :: len(VENUES)]
        header = f"📚 预训练¶\n\n🧠 {venue}{year} · {len(chunk)} 篇论文解读\n\n"
        body = "\n".join(f"{title}: {summary}" for title, summary in chunk)
        path = folder / f"synthetic-{venue.lower()}-{year}.txt"
        path.write_text(header + body + "\n", encoding="utf-8")
        paths.append(path)
    return paths
