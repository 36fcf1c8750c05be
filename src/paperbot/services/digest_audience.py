"""Who a digest is picked for: a server's subscribers, or one reader's
topics, as `TopicDemand`s with match scores scaled to [0, 1]."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from paperbot.core.digest import TopicDemand
from paperbot.core.topics import MAX_TOPIC_SCORE, TopicInputError
from paperbot.services.subscriptions import SubscriptionService

# guild id -> every subscribed topic of that server with subscribers and matches
Audience = Callable[[int], Awaitable[Sequence[TopicDemand]]]


def subscriber_audience(subscriptions: SubscriptionService) -> Audience:
    """A server's audience from its subscriptions, scores scaled to [0, 1]."""

    async def audience(guild_id: int) -> Sequence[TopicDemand]:
        return [scaled(d) for d in await subscriptions.demands(guild_id)]

    return audience


def scaled(demand: TopicDemand) -> TopicDemand:
    """The demand with its match scores on the [0, 1] scale picking uses."""
    return TopicDemand(
        demand.topic,
        demand.subscribers,
        demand.ids,
        demand.scores / MAX_TOPIC_SCORE,
        demand.near_ids,
        demand.near_scores / MAX_TOPIC_SCORE,
    )


READER = 0
"""Stands for the one made-up subscriber of `reader_demands`."""


async def reader_demands(
    subscriptions: SubscriptionService, texts: Sequence[str]
) -> list[TopicDemand]:
    """The audience of one reader following `texts` (vocabulary topics or free
    keywords, as /subscribe takes them; synonyms count once), scaled for
    picking: what `digest preview --topics` and `bench quality` pick for.
    Raises `TopicInputError` for unusable text or when no text is left."""
    if not any(text.strip() for text in texts):
        raise TopicInputError("--topics needs at least one topic, e.g. --topics 'RLHF, MoE'")
    return [scaled(d) for d in await subscriptions.reader_demands(texts, READER)]
