"""`paperbot similar ID_OR_TITLE`: the papers most like one paper ("more like this")."""

from __future__ import annotations

import argparse
from typing import Any

from paperbot.argtypes import positive_int
from paperbot.cli.common import EXIT_OK, fail, print_json, with_app
from paperbot.config import Settings
from paperbot.services.app import App


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "similar",
        help="papers most like one paper, with the topics they share",
        description=(
            "The paper is an id, a title, or any description (English or Chinese: the best"
            " search hit is used). Similarity: TF-IDF of title and summary plus shared topics."
        ),
    )
    parser.add_argument("paper", metavar="ID_OR_TITLE", help="paper id, title or description")
    parser.add_argument("--limit", type=positive_int, default=5, help="papers (default 5)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    async def job(app: App) -> int:
        anchor = await app.feedback.find_paper(args.paper)
        if anchor is None:
            return fail(f"no loaded paper matches {args.paper!r}")
        corpus = await app.digest.corpus_arrays()
        found = await app.feedback.similar(corpus, anchor.id, min(args.limit, 50))
        if args.json:
            print_json(
                {
                    "paper": {"id": anchor.id, "title": anchor.title},
                    "similar": [
                        {
                            "id": s.paper.id,
                            "title": s.paper.title,
                            "venue": s.paper.venue,
                            "year": s.paper.year,
                            "score": round(s.score, 4),
                            "shared_topics": list(s.shared),
                        }
                        for s in found
                    ],
                }
            )
            return EXIT_OK
        print(f"Papers like: {anchor.title} (id {anchor.id})")
        for number, s in enumerate(found, start=1):
            why = ", ".join(s.shared) if s.shared else "similar wording"
            print(f"\n{number}. {s.paper.title}")
            print(f"   {s.paper.venue} {s.paper.year} · id {s.paper.id} · {s.score:.3f} · {why}")
        if not found:
            print("No other loaded paper is close to it.")
        return EXIT_OK

    return with_app(settings, job)
