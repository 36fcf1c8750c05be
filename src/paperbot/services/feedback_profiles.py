"""Each server's personalization in memory, per corpus version, followed
vote by vote (`core.profile_state.ProfileState`).

Every pick asks `GuildProfiles.personalization`, which first reads the
server's feedback version: one row, moved by a trigger for every row changed
in the server's votes or mutes, whoever changes it (`storage.feedback.
feedback_version`). The number the copy in memory was made at: nothing
changed anywhere, and the copy serves as it is. A vote, reset or mute made
through this process is applied to the copy without reading the votes again
when the number moved by exactly the rows it changed (so nothing else
happened meanwhile). Any other move (another process sharing a PostgreSQL
database, a /mydata delete, a purge, two presses racing) re-reads the
server's votes, and only the readers whose votes differ are fitted again. A
new corpus version builds the copy afresh, every reader's model fitted
together.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from paperbot.core.digest import CorpusArrays
from paperbot.core.profile import Mute, Personalization, ReaderModel
from paperbot.core.profile_state import ProfileState
from paperbot.services.topics import TopicService
from paperbot.storage import feedback as store
from paperbot.storage.backend import Database
from paperbot.storage.feedback import VoteOutcome

log = logging.getLogger(__name__)

T = TypeVar("T")
# user -> corpus position -> +1 / -1
ReaderVotes = dict[int, dict[int, int]]


@dataclass(eq=False, slots=True)
class _Copy:
    """One server's votes as of `version` and the state made from them."""

    corpus: CorpusArrays
    version: int
    votes: ReaderVotes
    state: ProfileState
    has_mutes: bool
    # Readers whose votes changed since the state last saw them.
    dirty: set[int] = field(default_factory=set)
    mutes_stale: bool = False


def _split(votes: Mapping[int, int]) -> tuple[list[int], list[int]]:
    """position -> value as (liked positions, disliked positions)."""
    return [p for p, v in votes.items() if v > 0], [p for p, v in votes.items() if v < 0]


class GuildProfiles:
    def __init__(
        self,
        db: Database,
        topics: TopicService,
        capacity: int,
        memory: int,
    ) -> None:
        """Keeps at most `capacity` servers' copies holding `memory` bytes
        together (`feedback.kept_servers`, `feedback.kept_mb`): the least
        recently picked is dropped first; the one in use is always kept."""
        self._db = db
        self._topics = topics
        self._capacity = capacity
        self._memory = memory
        self._copies: OrderedDict[int, _Copy] = OrderedDict()
        self._locks: dict[int, asyncio.Lock] = {}

    async def personalization(
        self,
        guild_id: int,
        corpus: CorpusArrays,
        audience: Collection[int],
        reader: int | None = None,
    ) -> Personalization | None:
        """What the server's (or, with `reader`, one reader's) votes and mutes
        change in a pick; None when nobody here voted or muted anything."""
        async with self._locks.setdefault(guild_id, asyncio.Lock()):
            copy = await self._current(guild_id, corpus)
            if copy is None or not (copy.votes or copy.has_mutes):
                return None
            return await self._in_thread(
                guild_id, lambda: copy.state.personalization(audience, reader=reader)
            )

    async def reader(
        self, guild_id: int, user_id: int, corpus: CorpusArrays
    ) -> tuple[ReaderModel, dict[int, int]]:
        """One reader's model and votes (corpus position -> +1 / -1) as the
        server's picks see them: the kept state, so /search and /feedback show
        agree with the digest (and fit nothing it already fitted)."""
        async with self._locks.setdefault(guild_id, asyncio.Lock()):
            copy = await self._current(guild_id, corpus)
            if copy is None:
                return ReaderModel.none(), {}
            return copy.state.model_of(user_id), dict(copy.votes.get(user_id, {}))

    # --- what this process changed ---------------------------------------------

    async def voted(
        self, guild_id: int, user_id: int, paper_id: int, value: int, outcome: VoteOutcome
    ) -> None:
        """A vote this process stored (one row changed)."""

        def apply(copy: _Copy) -> None:
            position = copy.corpus.positions([paper_id])
            if len(position) == 0:
                return  # not in the copy's corpus: it steers nothing there
            votes = copy.votes.setdefault(user_id, {})
            if outcome == "removed":
                votes.pop(int(position[0]), None)
            else:
                votes[int(position[0])] = value
            if not votes:
                del copy.votes[user_id]
            copy.dirty.add(user_id)

        await self._note(guild_id, 1, apply)

    async def reset(self, guild_id: int, user_id: int, removed: int) -> None:
        """A reader's votes this process deleted (`removed` rows)."""

        def apply(copy: _Copy) -> None:
            copy.votes.pop(user_id, None)
            copy.dirty.add(user_id)

        if removed:
            await self._note(guild_id, removed, apply)

    async def mutes_changed(self, guild_id: int, changed: bool) -> None:
        """A mute this process added or removed (one row when `changed`)."""

        def apply(copy: _Copy) -> None:
            copy.mutes_stale = True

        if changed:
            await self._note(guild_id, 1, apply)

    async def _note(self, guild_id: int, rows: int, apply: Callable[[_Copy], None]) -> None:
        if guild_id not in self._copies:
            return
        version = await store.feedback_version(self._db, guild_id)
        copy = self._copies.get(guild_id)
        # Moved by more than this change: something else changed too, and the
        # next pick reads the votes again.
        if copy is not None and version == copy.version + rows:
            copy.version = version
            apply(copy)

    # --- keeping the copy current --------------------------------------------------

    async def _current(self, guild_id: int, corpus: CorpusArrays) -> _Copy | None:
        version = await store.feedback_version(self._db, guild_id)
        copy = self._copies.get(guild_id)
        if copy is None and version == 0:
            return None  # nobody here ever voted or muted
        if copy is None or copy.corpus is not corpus:
            copy = await self._build(guild_id, corpus, version)
        elif copy.version != version:
            await self._reread(guild_id, copy, version)
        self._keep(guild_id, copy)
        if copy.mutes_stale:
            copy.mutes_stale = False
            mutes = await store.guild_mutes(self._db, guild_id)
            copy.has_mutes = bool(mutes)
            muted = await self._muted(mutes, copy.corpus)
            await self._in_thread(guild_id, lambda: copy.state.set_mutes(muted))
        if copy.dirty:
            changed = {user: _split(copy.votes.get(user, {})) for user in copy.dirty}
            copy.dirty = set()
            await self._in_thread(guild_id, lambda: copy.state.update(changed))
        return copy

    def _keep(self, guild_id: int, copy: _Copy) -> None:
        """Remember `copy` as the most recent, dropping the least recently
        used ones over the count or the memory allowed."""
        self._copies[guild_id] = copy
        self._copies.move_to_end(guild_id)
        held = sum(c.state.nbytes for c in self._copies.values())
        while len(self._copies) > 1 and (len(self._copies) > self._capacity or held > self._memory):
            _, dropped = self._copies.popitem(last=False)
            held -= dropped.state.nbytes

    async def _build(self, guild_id: int, corpus: CorpusArrays, version: int) -> _Copy:
        """The copy from scratch: read before it is built, `version` is never
        newer than the votes."""
        votes = await self._votes(guild_id, corpus)
        mutes = await store.guild_mutes(self._db, guild_id)
        muted = await self._muted(mutes, corpus)
        split = {user: _split(found) for user, found in votes.items()}
        state = await asyncio.to_thread(ProfileState.build, corpus.vectors, split, muted)
        log.debug("personalization of guild %d built: %d voters", guild_id, state.voters)
        return _Copy(corpus, version, votes, state, bool(mutes))

    async def _reread(self, guild_id: int, copy: _Copy, version: int) -> None:
        votes = await self._votes(guild_id, copy.corpus)
        copy.dirty |= set(copy.votes) | set(votes)
        copy.votes, copy.version, copy.mutes_stale = votes, version, True

    async def _votes(self, guild_id: int, corpus: CorpusArrays) -> ReaderVotes:
        votes = await store.guild_votes(self._db, guild_id)
        positions = corpus.positions([v.paper_id for v in votes])
        at = dict(zip(corpus.ids[positions].tolist(), positions.tolist(), strict=True))
        found: ReaderVotes = {}
        for vote in votes:
            position = at.get(vote.paper_id)
            if position is not None:
                found.setdefault(vote.user_id, {})[position] = vote.value
        return found

    async def _muted(self, mutes: list[Mute], corpus: CorpusArrays) -> dict[int, set[int]]:
        """Each mute's papers (positions) by user (0: the server); a muted
        keyword is read as `resolve` reads its text today, as subscriptions are."""
        muted: dict[int, set[int]] = {}
        for mute in mutes:
            topic = self._topics.current(self._topics.stored(mute.kind, mute.topic, mute.label))
            found = await self._topics.matches(topic)
            muted.setdefault(mute.user_id, set()).update(corpus.positions(found.ids).tolist())
        return muted

    async def _in_thread(self, guild_id: int, work: Callable[[], T]) -> T:
        """`work` on the server's state in a worker thread. Cancelled or
        failed, the thread may still be changing the state: the copy is
        dropped (the next pick builds a new one) so nothing reads it half-done."""
        try:
            return await asyncio.to_thread(work)
        except BaseException:
            self._copies.pop(guild_id, None)
            raise


__all__ = ["GuildProfiles"]
