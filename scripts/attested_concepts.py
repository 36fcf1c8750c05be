"""Prints the concept tables of docs/lexicon_mined.toml that the shipped
corpus attests: some paper's title holds one of the table's English terms as
whole words while the same paper's summary holds one of its Chinese terms.
The subset measured in docs/lexicon.md ("qweight + 85 attested tables"):

    .venv/bin/python scripts/attested_concepts.py [MIN_PAPERS] > /tmp/attested.toml
    cat /tmp/attested.toml >> src/paperbot/data/topics.toml   # to measure only
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

from paperbot.bench.lexicon import corpus_papers
from paperbot.config import BUNDLED_CORPUS
from paperbot.core.text import normalize, tokens

MINED = Path(__file__).resolve().parent.parent / "docs/lexicon_mined.toml"


def _words(text: str) -> str:
    return " " + " ".join(tokens(normalize(text))) + " "


def main() -> int:
    min_papers = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    papers = [(_words(p.title), normalize(p.summary)) for p in corpus_papers(BUNDLED_CORPUS)]
    tables = tomllib.loads(MINED.read_text(encoding="utf-8"))["concept"]
    kept = 0
    for table in tables:
        english = [_words(t) for t in table["en"]]
        chinese = [normalize(t) for t in table["zh"]]
        papers_saying = sum(
            1
            for title, summary in papers
            if any(e in title for e in english) and any(z in summary for z in chinese)
        )
        if papers_saying >= min_papers:
            kept += 1
            en, zh = (
                json.dumps(table["en"], ensure_ascii=False),
                json.dumps(table["zh"], ensure_ascii=False),
            )
            sys.stdout.write(f"\n[[concept]]\nen = {en}\nzh = {zh}\n")
    sys.stderr.write(f"{kept} of {len(tables)} tables attested in >= {min_papers} papers\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
