"""`paperbot digest preview`: the next digest's picks, without Discord
(`paperbot digest history` is in `cli.digest_history`)."""

from __future__ import annotations

import argparse
from typing import Any

from paperbot.argtypes import snowflake
from paperbot.cli import digest_history
from paperbot.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, fail, print_json, with_app
from paperbot.clock import utc_now
from paperbot.config import Settings
from paperbot.core.digest import TopicDemand
from paperbot.core.digest_render import plan_json
from paperbot.core.render import trim
from paperbot.core.topics import TopicInputError
from paperbot.services.app import App
from paperbot.services.digest import Preview, reader_demands, scaled

SUMMARY_SHOWN = 160


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "digest", help="the daily digest without Discord"
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    preview = actions.add_parser(
        "preview",
        help="print the picks the next digest would post",
        description=(
            "Picks for a server's subscribers (--guild), or for one reader following"
            " --topics, skipping papers already posted in the server's digest channel."
        ),
    )
    preview.add_argument("--guild", type=snowflake, default=0, help="server id (default: none)")
    preview.add_argument(
        "--topics", help='comma-separated topics or keywords to pick for, e.g. "RLHF, 扩散模型"'
    )
    preview.add_argument(
        "--user",
        type=snowflake,
        help="one reader's picks (their topics here, steered by their votes and mutes);"
        " each pick shows how far the profile moved it",
    )
    preview.add_argument("--count", type=_count, help="picks (1-10; default: the server's)")
    preview.add_argument("--json", action="store_true", help="print one JSON object")
    preview.set_defaults(handler=run)
    digest_history.register(actions)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= 10:
        raise argparse.ArgumentTypeError(f"{value} is not between 1 and 10")
    return value


def run(args: argparse.Namespace, settings: Settings) -> int:
    async def job(app: App) -> int:
        demands: list[TopicDemand] | None = None
        notes: list[str] = []
        if args.topics is not None:
            try:
                demands = await reader_demands(app.subscriptions, args.topics.split(","))
                notes = [f"{d.topic} matches no paper" for d in demands if not len(d.ids)]
            except TopicInputError as exc:
                return fail(str(exc), EXIT_USAGE)
        if args.user is not None and demands is None:
            demands = await reader_topics(app, args.guild, args.user)
            if not demands:
                notes.append(f"user {args.user} follows no topic in server {args.guild}")
        preview = await app.digest.preview(
            args.guild, utc_now(), count=args.count, demands=demands, reader=args.user
        )
        if preview.corpus_size == 0:
            return fail("no papers loaded: run `paperbot load` first")
        moved = await _moved(app, args, demands, preview) if args.user is not None else None
        if args.guild and demands is None and not await _guild_is_known(app, args.guild, preview):
            notes.append(f"server {args.guild} has no digest set up and no subscribers")
        if args.json:
            print_json(_json(preview, args.user, moved))
        else:
            _print(preview, moved)
        for note in notes:
            fail(note)
        return EXIT_PROBLEMS if notes else EXIT_OK

    return with_app(settings, job)


async def _moved(
    app: App, args: argparse.Namespace, demands: list[TopicDemand] | None, preview: Preview
) -> dict[int, int | None]:
    """The reader's picks' ranks without their profile (same topics, no votes or mutes)."""
    plain = await app.digest.preview(
        args.guild, utc_now(), count=args.count, demands=demands, personalized=False
    )
    return rank_without_profile(preview, plain)


def _json(
    preview: Preview, user: int | None, moved: dict[int, int | None] | None
) -> dict[str, object]:
    data = plan_json(preview.plan, preview.papers)
    data["header"] = preview.message.content.split("\n", 1)[0]
    data["channel_id"] = preview.channel_id
    if moved is not None:
        data["user"] = user
        picks: list[dict[str, Any]] = data["picks"]  # type: ignore[assignment]
        for number, pick in enumerate(picks, start=1):
            pick["rank"] = number
            pick["rank_without_profile"] = moved.get(pick["id"])
    return data


async def reader_topics(app: App, guild_id: int, user_id: int) -> list[TopicDemand]:
    """The server's demands the reader follows, as if they were the only subscriber."""
    return [
        scaled(TopicDemand(d.topic, (user_id,), d.ids, d.scores))
        for d in await app.subscriptions.demands(guild_id)
        if user_id in d.subscribers
    ]


def rank_without_profile(ours: Preview, plain: Preview) -> dict[int, int | None]:
    """Per pick: its rank (1-based) among the picks without the profile, None if not picked."""
    ranks = {p.paper_id: n for n, p in enumerate(plain.plan.picks, start=1)}
    return {p.paper_id: ranks.get(p.paper_id) for p in ours.plan.picks}


async def _guild_is_known(app: App, guild_id: int, preview: Preview) -> bool:
    return preview.channel_id is not None or bool(await app.subscriptions.demands(guild_id))


def _print(preview: Preview, moved: dict[int, int | None] | None = None) -> None:
    plan = preview.plan
    print(preview.message.content.split("\n", 1)[0].replace("**", ""))
    if plan.nothing_left:
        print("Every paper has already been posted in this server's digest channel.")
        return
    for number, pick in enumerate(plan.picks, start=1):
        paper = preview.papers.get(pick.paper_id)
        if paper is None:
            continue
        print(f"\n{number}. {paper.title}")
        print(f"   {paper.venue} {paper.year} · id {paper.id} · {pick.kind}: {pick.reason}")
        if moved is not None:
            before = moved.get(pick.paper_id)
            was = f"#{before} without it" if before else "not picked without it"
            print(f"   profile {pick.profile:+.3f} · {was}")
        if paper.summary:
            print(f"   {trim(paper.summary, SUMMARY_SHOWN)}")
    left = f"{plan.remaining} unposted papers left"
    print(f"\n{len(plan.picks)} picks; {left}")
