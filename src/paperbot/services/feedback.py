"""Learning from readers: 👍/👎 votes, mutes, the profile the picker uses,
"more like this", and what a reader can see and reset.

`personalization` is the one entry the picking path calls (the server
digest, a reader's preview and any personal digest go through
`DigestService.plan`, which calls it): each server's votes and mutes are kept
as a `core.profile_state.ProfileState` per corpus version, followed vote by
vote and checked against the database on every pick
(`services/feedback_profiles.py`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from numpy.typing import NDArray

from paperbot.config import FeedbackSettings
from paperbot.core.digest import CorpusArrays
from paperbot.core.models import Paper
from paperbot.core.profile import Mute, Personalization, ReaderModel, topic_leanings
from paperbot.core.similar import SIMILAR_LIMIT, concept_matrix, more_like
from paperbot.core.topics import Choice, Topic, clip
from paperbot.services.feedback_profiles import GuildProfiles
from paperbot.services.search import SearchService
from paperbot.services.topics import TopicService
from paperbot.storage import feedback as store
from paperbot.storage import papers as paper_store
from paperbot.storage.backend import Database
from paperbot.storage.feedback import SERVER, VoteOutcome

log = logging.getLogger(__name__)

UP, DOWN = 1, -1


@dataclass(frozen=True, slots=True)
class SimilarPaper:
    paper: Paper
    score: float
    shared: tuple[str, ...]  # topics both papers match, "English · 中文"


@dataclass(frozen=True, slots=True)
class FeedbackSummary:
    likes: int
    dislikes: int
    model: str  # "none", "rocchio" or "logistic"
    towards: tuple[str, ...]
    away: tuple[str, ...]
    mutes: tuple[Mute, ...]


@dataclass(frozen=True, slots=True)
class Muted:
    topic: Topic
    changed: bool  # False: it already was (un)muted


class FeedbackService:
    def __init__(
        self,
        db: Database,
        topics: TopicService,
        search: SearchService | None = None,
        settings: FeedbackSettings | None = None,
    ) -> None:
        self._db = db
        self._topics = topics
        self._search = search
        # Per server, the readers with votes and the feedback version they
        # were read at: /search asks on every query, so a reader's votes are
        # re-read only when the server's version moved (another process too).
        self._voters: dict[int, tuple[int, frozenset[int]]] = {}
        self._concepts: tuple[CorpusArrays, NDArray[Any]] | None = None
        kept = FeedbackSettings() if settings is None else settings
        self._profiles = GuildProfiles(db, topics, kept.kept_servers, kept.kept_bytes)

    # --- votes ----------------------------------------------------------------

    async def vote(
        self, guild_id: int, user_id: int, paper_id: int, value: int, now: datetime
    ) -> VoteOutcome | None:
        """👍 (+1) or 👎 (-1): again undoes it, the other replaces it; None
        when the paper is unknown."""
        outcome = await store.toggle_vote(self._db, guild_id, user_id, paper_id, value, now)
        if outcome is not None:
            await self._profiles.voted(guild_id, user_id, paper_id, value, outcome)
        log.info(
            "vote %+d by user %d in guild %d on paper %d: %s",
            value,
            user_id,
            guild_id,
            paper_id,
            outcome,
        )
        return outcome

    async def has_votes(self, guild_id: int, user_id: int) -> bool:
        """Whether the reader voted here: one row read per call (the server's
        feedback version), the voters themselves only when it moved."""
        version = await store.feedback_version(self._db, guild_id)
        known = self._voters.get(guild_id)
        if known is None or known[0] != version:
            known = (version, await store.guild_voters(self._db, guild_id))
            self._voters[guild_id] = known
        return user_id in known[1]

    async def reset(self, guild_id: int, user_id: int) -> int:
        """Forget the reader's votes here; how many there were."""
        removed = await store.reset_votes(self._db, guild_id, user_id)
        await self._profiles.reset(guild_id, user_id, removed)
        return removed

    # --- mutes ----------------------------------------------------------------

    async def mute(self, guild_id: int, user_id: int, text: str, now: datetime) -> Muted:
        """Mute a topic or keyword for a reader (`user_id`) or, with
        `SERVER`, the whole server. Raises `TopicInputError` for unusable text."""
        topic = self._topics.resolve(text)
        added = await store.add_mute(
            self._db, guild_id, user_id, topic.kind, topic.key, topic.label, now
        )
        await self._profiles.mutes_changed(guild_id, added)
        return Muted(topic, added)

    async def unmute(self, guild_id: int, user_id: int, text: str) -> Muted:
        """Unmute; the text may be the stored key (autocomplete) or anything `mute` takes."""
        for mute in await store.guild_mutes(self._db, guild_id, user_id):
            if mute.user_id == user_id and text.strip() in (mute.topic, mute.label):
                topic = self._topics.stored(mute.kind, mute.topic, mute.label)
                break
        else:
            topic = self._topics.resolve(text)
        removed = await store.remove_mute(self._db, guild_id, user_id, topic.kind, topic.key)
        await self._profiles.mutes_changed(guild_id, removed)
        return Muted(topic, removed)

    async def mutes(self, guild_id: int, user_id: int) -> list[Mute]:
        """The reader's mutes and the server's (user id 0)."""
        return await store.guild_mutes(self._db, guild_id, user_id)

    async def suggest_muted(self, guild_id: int, user_id: int, text: str) -> list[Choice]:
        """Autocomplete for /unmute: the mutes of this scope containing the text."""
        typed = text.strip().casefold()
        return [
            Choice(clip(m.label), m.topic[:100])
            for m in await store.guild_mutes(self._db, guild_id, user_id)
            if m.user_id == user_id and typed in m.label.casefold()
        ][:25]

    # --- the profile the picker uses -------------------------------------------

    async def personalization(
        self,
        guild_id: int,
        corpus: CorpusArrays,
        audience: Collection[int],
        reader: int | None = None,
    ) -> Personalization | None:
        """What the server's (or, with `reader`, one reader's) votes and mutes
        change in a pick; None when nobody here voted or muted anything."""
        return await self._profiles.personalization(guild_id, corpus, audience, reader)

    async def reader_model(self, guild_id: int, user_id: int, corpus: CorpusArrays) -> ReaderModel:
        """The reader's model as the server's picks use it (the kept state)."""
        model, _ = await self._profiles.reader(guild_id, user_id, corpus)
        return model

    async def personal_order(
        self, guild_id: int, user_id: int, corpus: CorpusArrays, paper_ids: Sequence[int]
    ) -> list[int]:
        """Indices of `paper_ids` (ranked by relevance) reordered for the reader:
        rank score 1 - i/n plus the reader's model; 👎'd papers go last.
        The identity order when the reader has not voted (on a loaded paper)."""
        model, by_position = await self._profiles.reader(guild_id, user_id, corpus)
        if not by_position:
            return list(range(len(paper_ids)))
        votes = {int(corpus.ids[p]): value for p, value in by_position.items()}
        positions = corpus.positions(paper_ids)
        scores = dict(
            zip(
                corpus.ids[positions].tolist(),
                model.score(corpus.vectors, positions).tolist(),
                strict=True,
            )
        )
        n = len(paper_ids)
        keyed = [
            (votes.get(pid, 0) < 0, -(1.0 - i / n + scores.get(pid, 0.0)), i)
            for i, pid in enumerate(paper_ids)
        ]
        return [i for *_, i in sorted(keyed)]

    async def summary(self, guild_id: int, user_id: int, corpus: CorpusArrays) -> FeedbackSummary:
        """/feedback show: votes, the model in use, the topics it leans to and from."""
        likes, dislikes = await store.count_votes(self._db, guild_id, user_id)
        votes = {v.paper_id: v.value for v in await store.guild_votes(self._db, guild_id, user_id)}
        model = await self.reader_model(guild_id, user_id, corpus)
        topics = {}
        for topic in self._topics.vocabulary.topics:
            found = await self._topics.matches(topic)
            hit = [int(p) for p in found.ids if int(p) in votes]
            if hit:
                topics[topic.label] = hit
        towards, away = topic_leanings(votes, topics)
        mutes = tuple(await store.guild_mutes(self._db, guild_id, user_id))
        return FeedbackSummary(likes, dislikes, model.kind, tuple(towards), tuple(away), mutes)

    # --- more like this -----------------------------------------------------------

    async def _concept_matrix(self, corpus: CorpusArrays) -> NDArray[Any]:
        if self._concepts is None or self._concepts[0] is not corpus:
            columns = []
            for topic in self._topics.vocabulary.topics:
                columns.append(corpus.positions((await self._topics.matches(topic)).ids))
            matrix = await asyncio.to_thread(concept_matrix, len(corpus), columns)
            self._concepts = (corpus, matrix)
        return self._concepts[1]

    async def find_paper(self, text: str) -> Paper | None:
        """A paper by id (what autocomplete sends) or the best search hit for
        the text (a title, or a description in English or Chinese)."""
        if text.strip().isdigit():
            found = await paper_store.get_papers(self._db, [int(text)])
            if found:
                return found[0]
        if self._search is None:
            return None
        result = await self._search.search(text, limit=1, highlight=0)
        return result.hits[0].paper if result.hits else None

    async def suggest_papers(self, text: str) -> list[Choice]:
        """Autocomplete over titles: the best search hits, value = paper id."""
        if not text.strip() or self._search is None:
            return []
        result = await self._search.search(text, limit=25, highlight=0)
        return [Choice(clip(h.paper.title), str(h.paper.id)) for h in result.hits]

    async def similar(
        self, corpus: CorpusArrays, paper_id: int, limit: int = SIMILAR_LIMIT
    ) -> list[SimilarPaper]:
        """The papers most like this one (none when it is not loaded), with
        the topics they share as the reason."""
        position = corpus.positions([paper_id])
        if len(position) == 0:
            return []
        matrix = await self._concept_matrix(corpus)
        found = await asyncio.to_thread(more_like, corpus.vectors, matrix, int(position[0]), limit)
        ids = [int(corpus.ids[n.position]) for n in found]
        papers = {p.id: p for p in await paper_store.get_papers(self._db, ids)}
        labels = [t.label for t in self._topics.vocabulary.topics]
        return [
            SimilarPaper(papers[pid], n.score, tuple(labels[c] for c in n.shared))
            for pid, n in zip(ids, found, strict=True)
            if pid in papers
        ]


__all__ = ["DOWN", "SERVER", "UP", "FeedbackService", "FeedbackSummary", "Muted", "SimilarPaper"]
