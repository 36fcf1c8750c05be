"""Subscription use-cases, shared by the slash commands, the CLI and the digest.

Subscriptions are per user per server: every call takes both ids and never
reads across servers (except the operator listing, which asks explicitly).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from paperbot.core import limits
from paperbot.core.digest import TopicDemand
from paperbot.core.models import Subscription
from paperbot.core.text import normalize
from paperbot.core.topics import (
    Choice,
    Topic,
    TopicInputError,
    check_topic_text,
    clip,
    term_key,
)
from paperbot.services.keyword_near import KeywordNear
from paperbot.services.topics import TopicService
from paperbot.storage import subscriptions as store
from paperbot.storage.backend import Database

TopicFollowers = tuple[Topic, Sequence[int]]
"""A topic and who follows it, as the digest's demands are made from."""

MAX_PER_USER = 25
"""Topics one user may follow in one server (also Discord's choice limit,
so /unsubscribe's autocomplete can always offer all of them)."""

MAX_INSTEAD = 3
"""Topics offered in place of a keyword nothing matches (one button each)."""

ENTRY_REFUSED = "“{entry}”: {problem}"
"""A list's unusable entry, named: which of "the, scaling laws" is refused."""


class SubscriptionLimitError(Exception):
    """The user already follows `MAX_PER_USER` topics in this server."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"at most {limit} topics per user per server")
        self.limit = limit


@dataclass(frozen=True, slots=True)
class Subscribed:
    topic: Topic
    created: bool
    """False when the user already followed it (a friendly no-op)."""
    match_count: int
    total: int
    """Topics the user now follows in this server."""
    close_to: tuple[Topic, ...] = ()
    """For a keyword no paper matches: the topics whose papers the digest
    offers meanwhile as close to it (`KeywordNear`)."""
    instead: tuple[Topic, ...] = ()
    """For a keyword no paper matches: vocabulary topics to follow in its
    place (`switch`; `alternatives`), at most `MAX_INSTEAD`."""


@dataclass(frozen=True, slots=True)
class Unsubscribed:
    topic: Topic
    removed: bool
    """False when the user did not follow it."""


@dataclass(frozen=True, slots=True)
class Followed:
    topic: Topic
    match_count: int
    retired: bool
    """The vocabulary no longer has this topic id (it matches nothing)."""
    since: datetime


class SubscriptionService:
    def __init__(self, db: Database, topics: TopicService) -> None:
        self.db = db
        self.topics = topics
        self._near = KeywordNear(topics)

    async def listing(
        self, guild_id: int | None = None, user_id: int | None = None
    ) -> list[Subscription]:
        """Stored subscriptions across servers, optionally for one server and/or
        user (the operator CLI: the only caller allowed to read across servers)."""
        return await store.list_subscriptions(self.db, guild_id=guild_id, user_id=user_id)

    async def subscribe(self, guild_id: int, user_id: int, text: str, now: datetime) -> Subscribed:
        """Follow a topic or keyword. Raises `TopicInputError` for unusable
        text and `SubscriptionLimitError` at the per-server limit."""
        topic = self.topics.resolve(text)
        outcome = await store.add(
            self.db, guild_id, user_id, topic.kind, topic.key, topic.name, now, MAX_PER_USER
        )
        subscribed = await self._followed(guild_id, user_id, topic, outcome)
        if subscribed.match_count:
            return subscribed
        close, instead = await self.alternatives(topic, text)
        return replace(subscribed, close_to=close, instead=instead)

    async def alternatives(
        self, topic: Topic, text: str
    ) -> tuple[tuple[Topic, ...], tuple[Topic, ...]]:
        """For a topic nothing matches (typed as `text`): the topics whose
        papers the digest offers as close to it (`KeywordNear`), and for a
        keyword the vocabulary topics to follow in its place: those, then the
        topics autocomplete ranks above the keyword itself."""
        close = await self._near.close_topics(topic)
        if not topic.is_keyword:
            return close, ()
        offered = dict.fromkeys(close)
        for choice in self.topics.suggest(text):
            spelled = self.topics.vocabulary.get(choice.value)
            if spelled is None:  # the keyword's own choice: what follows is farther off
                break
            offered.setdefault(spelled)
        return close, tuple(offered)[:MAX_INSTEAD]

    async def switch(
        self, guild_id: int, user_id: int, old: Topic, topic: Topic, now: datetime
    ) -> Subscribed:
        """Follow `topic` in place of `old` (a keyword `subscribe` offered it
        for, `Subscribed.instead`) in one transaction. Raises
        `SubscriptionLimitError` when `old` was dropped meanwhile and the user
        follows the most topics already."""
        new = (topic.kind, topic.key, topic.name)
        outcome = await store.replace(
            self.db, guild_id, user_id, (old.kind, old.key), new, now, MAX_PER_USER
        )
        return await self._followed(guild_id, user_id, topic, outcome)

    async def _followed(
        self, guild_id: int, user_id: int, topic: Topic, outcome: store.AddOutcome
    ) -> Subscribed:
        """What an add (or a swap) of `topic` came to; the limit as its error."""
        if outcome == "limit":
            raise SubscriptionLimitError(MAX_PER_USER)
        count = await self.topics.match_count(topic)
        total = await store.count_user(self.db, guild_id, user_id)
        return Subscribed(topic, outcome == "added", count, total)

    async def unsubscribe(self, guild_id: int, user_id: int, text: str) -> Unsubscribed:
        """Stop following. The text may be a stored topic id or keyword (what
        autocomplete sends) or anything `subscribe` understands."""
        mine = await store.user_subscriptions(self.db, guild_id, user_id)
        target = self._find_own(mine, text)
        if target is None:
            target = self.topics.resolve(text)
        removed = await store.remove(self.db, guild_id, user_id, target.kind, target.key)
        return Unsubscribed(target, removed)

    def _find_own(self, mine: list[Subscription], text: str) -> Topic | None:
        """The user's own subscription this text names, even one the current
        vocabulary would resolve differently (a retired id, an old keyword)."""
        try:
            cleaned = check_topic_text(text)
        except TopicInputError:
            return None
        key = term_key(cleaned)
        for sub in mine:
            if (sub.kind == "topic" and sub.topic == cleaned) or (
                sub.kind == "keyword" and sub.topic == key
            ):
                return self.topics.stored(sub.kind, sub.topic, sub.label)
        return None

    async def followed(self, guild_id: int, user_id: int) -> list[Followed]:
        """The user's topics in this server, oldest first, with match counts."""
        result = []
        for sub in await store.user_subscriptions(self.db, guild_id, user_id):
            topic = self.topics.stored(sub.kind, sub.topic, sub.label)
            result.append(
                Followed(
                    topic,
                    await self.topics.match_count(topic),
                    self.topics.is_retired(topic),
                    sub.created_at,
                )
            )
        return result

    async def suggest_followed(self, guild_id: int, user_id: int, text: str) -> list[Choice]:
        """Autocomplete for /unsubscribe: the user's own topics here, those
        containing the typed text first."""
        query = normalize(text)
        every: list[Choice] = []
        containing: list[Choice] = []
        for sub in await store.user_subscriptions(self.db, guild_id, user_id):
            topic = self.topics.stored(sub.kind, sub.topic, sub.label)
            retired = self.topics.is_retired(topic)
            name = f"{topic.key} (retired · 已移除)" if retired else topic.label
            # Keys can outgrow the 100-character value limit (mixed scripts gain
            # spaces); the label then identifies the keyword just as well.
            value = sub.topic if len(sub.topic) <= limits.CHOICE_VALUE_MAX else sub.label
            choice = Choice(clip(name), value)
            every.append(choice)
            if query and query in normalize(" ".join((name, *topic.aliases))):
                containing.append(choice)
        return (containing or every)[: limits.AUTOCOMPLETE_CHOICES_MAX]

    async def demands(self, guild_id: int) -> list[TopicDemand]:
        """Every topic followed in the server with its subscribers and its
        matching papers (ids, scores): the digest's audience, one demand per
        topic id (stored keywords read as `resolve` reads them today; a
        keyword within a topic someone in the server follows joins it)."""
        followed = []
        for group in await store.guild_topics(self.db, guild_id):
            topic = self.topics.current(self.topics.stored(group.kind, group.topic, group.label))
            followed.append((topic, group.user_ids))
        return await self._merged(self._covered(followed))

    async def reader_demands(self, texts: Sequence[str], reader: int) -> list[TopicDemand]:
        """The demands of one reader following `texts` (topics or keywords),
        synonyms counted once. Raises `TopicInputError` for unusable text or
        when no text is given."""
        entries = [text.strip() for text in texts if text.strip()]
        if not entries:
            raise TopicInputError("give at least one topic, e.g. 'RLHF, MoE'")
        topics = [self._resolve_entry(text, named=len(entries) > 1) for text in entries]
        return await self._merged(self._covered([(topic, (reader,)) for topic in topics]))

    def _resolve_entry(self, text: str, *, named: bool) -> Topic:
        """`resolve`, its refusal naming the entry when a list had several."""
        try:
            return self.topics.resolve(text)
        except TopicInputError as exc:
            if not named:
                raise
            raise TopicInputError(ENTRY_REFUSED, entry=text, problem=str(exc)) from None

    async def user_demands(self, user_id: int) -> list[TopicDemand]:
        """One reader's demands over every server they follow topics in (the
        personal digest): a topic followed in several servers, or under two
        names, counts once, with the reader as its one subscriber."""
        topics = [
            self.topics.current(self.topics.stored(sub.kind, sub.topic, sub.label))
            for sub in await store.list_subscriptions(self.db, user_id=user_id)
        ]
        return await self._merged(self._covered([(topic, (user_id,)) for topic in topics]))

    def _covered(self, followed: Sequence[TopicFollowers]) -> list[TopicFollowers]:
        """Keywords within a followed topic joined to it: "scaling laws" and
        "Chinchilla" (an alias, so a keyword within the topic, `resolve`)
        are one demand, for one reader as for a server. A keyword whose
        topic nobody follows stays as narrow as typed."""
        whole = {topic.key: topic for topic, _ in followed if not topic.is_keyword}

        def joined(topic: Topic) -> Topic:
            parent = self.topics.within(topic)
            return whole.get(parent.key, topic) if parent is not None else topic

        return [(joined(topic), users) for topic, users in followed]

    async def _merged(self, followed: Sequence[TopicFollowers]) -> list[TopicDemand]:
        """One demand per topic id, with the union of its followers (a
        keyword's near papers topped up where its terms found few:
        `KeywordNear`)."""
        by_id: dict[tuple[str, str], tuple[Topic, dict[int, None]]] = {}
        for topic, users in followed:
            _, seen = by_id.setdefault((topic.kind, topic.key), (topic, {}))
            seen.update(dict.fromkeys(users))
        result = []
        for topic, followers in by_id.values():
            found = await self._near.topped_up(topic, await self.topics.matches(topic))
            result.append(
                TopicDemand(
                    topic.label,
                    tuple(followers),
                    found.ids,
                    found.scores,
                    found.near_ids,
                    found.near_scores,
                )
            )
        return result
