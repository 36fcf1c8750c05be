"""A keyword's near papers topped up from the topics it names a part of.

A keyword's matches and near papers come from its terms and their bilingual
concepts. Where those find little ("quantization-aware training",
量化感知训练: no page says it whole, and no concept covers half of it), the
digest would fill the rest with the newest unrelated papers. Instead, once
its near papers run short, the matches of the vocabulary topics it names a
part of come next (`core.topics.named_within`: Quantization's papers for
QAT), best first and below every near paper it had: offered as near ("close
to your topic, not a full match"), never as matches. Vocabulary topics are
left alone: the papers closest to their clear matches fill their near lists
(the feedback in `core.topics`).

A search for the keyword's words was measured as a further source and left
out: of the picks it added to the judged keywords' digests 2 in 19 were
relevant (the named topics' 7 in 20), the rest sharing one word ("aware",
增强), which "close to your topic" would misrepresent.
"""

from __future__ import annotations

from collections import OrderedDict

from paperbot.core.topics import NEAR_LIMIT, Topic, TopicMatches, named_within, with_more_near
from paperbot.services.topics import TopicService

CACHE_SIZE = 512
"""Keywords whose topped-up matches are kept (each with the matches it extends)."""


class KeywordNear:
    """Keywords' near papers topped up (see the module doc), kept until the
    matches they extend change (a new corpus version)."""

    def __init__(self, topics: TopicService) -> None:
        self._topics = topics
        self._kept: OrderedDict[str, tuple[TopicMatches, TopicMatches]] = OrderedDict()

    async def topped_up(self, topic: Topic, found: TopicMatches) -> TopicMatches:
        """`found` with more near papers when it has fewer than `NEAR_LIMIT`
        (a keyword's only); as it is otherwise."""
        if not _runs_short(topic, found):
            return found
        kept = self._kept.get(topic.key)
        if kept is not None and kept[0] is found:
            self._kept.move_to_end(topic.key)
            return kept[1]
        topped = with_more_near(found, await self._named(topic))
        self._kept[topic.key] = (found, topped)
        while len(self._kept) > CACHE_SIZE:
            self._kept.popitem(last=False)
        return topped

    async def close_topics(self, topic: Topic) -> tuple[Topic, ...]:
        """The topics whose papers top up the keyword's near list (none when
        its own words find `NEAR_LIMIT` near papers)."""
        if not _runs_short(topic, await self._topics.matches(topic)):
            return ()
        return named_within(topic, self._topics.vocabulary)

    async def _named(self, topic: Topic) -> list[int]:
        """The matches of the topics the keyword names a part of, best first
        (ties by paper id)."""
        scored: list[tuple[float, int]] = []
        for named in named_within(topic, self._topics.vocabulary):
            matches = await self._topics.matches(named)
            scored += zip((-matches.scores).tolist(), matches.ids.tolist(), strict=True)
        return [paper for _, paper in sorted(scored)]


def _runs_short(topic: Topic, found: TopicMatches) -> bool:
    """A keyword whose own words found fewer than `NEAR_LIMIT` near papers."""
    return topic.is_keyword and len(found.near_ids) < NEAR_LIMIT
