"""The personalization each server keeps in memory: after votes, unvotes,
mutes, a reset and a corpus change it is what `personalize` builds from the
database; a change made by another process (or a /mydata delete) is seen on
the next pick; a vote made here is applied without reading the votes again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paperbot.config import FeedbackSettings
from paperbot.core.digest import CorpusArrays, PreparedDemand, TopicDemand
from paperbot.core.profile import Personalization, Vote, personalize
from paperbot.services.app import App
from paperbot.services.feedback import SERVER
from paperbot.services.feedback_profiles import GuildProfiles
from paperbot.storage import feedback as feedback_store
from paperbot.storage.backend import Database
from tests.support.app import FIXED_NOW, settings_for
from tests.support.corpus import LoadPages, page, write
from tests.support.profile import assert_same

GUILD = 1
READERS = (10, 11, 12)
AUDIENCE = {*READERS, 13}


async def from_scratch(
    app: App, corpus: CorpusArrays, reader: int | None
) -> Personalization | None:
    """What the picking path built before it kept anything: every vote and
    mute read from the database, `personalize` over them."""
    votes = await feedback_store.guild_votes(app._db, GUILD)
    muted: dict[int, set[int]] = {}
    for mute in await feedback_store.guild_mutes(app._db, GUILD):
        stored = app.topics.stored(mute.kind, mute.topic, mute.label)
        found = await app.topics.matches(app.topics.current(stored))
        muted.setdefault(mute.user_id, set()).update(corpus.positions(found.ids).tolist())
    if not votes and not muted:
        return None
    at = {int(corpus.ids[p]): int(p) for p in corpus.positions([v.paper_id for v in votes])}
    rows = [(v.user_id, at[v.paper_id], v.value) for v in votes if v.paper_id in at]
    return personalize(corpus.vectors, rows, muted, AUDIENCE, reader=reader)


async def check(app: App) -> None:
    corpus = await app.digest.corpus_arrays()
    ids = corpus.ids
    demand = PreparedDemand.build(
        corpus, [TopicDemand("t", tuple(AUDIENCE), ids[::4], np.full(len(ids[::4]), 0.5))]
    )
    for reader in (None, *READERS):
        kept = await app.feedback.personalization(GUILD, corpus, AUDIENCE, reader)
        expected = await from_scratch(app, corpus, reader)
        if expected is None:
            assert kept is None
            continue
        assert kept is not None
        assert_same(corpus, demand, AUDIENCE, kept, expected)


async def papers(app: App) -> list[int]:
    return [int(i) for i in (await app.digest.corpus_arrays()).ids]


def count_vote_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The servers whose votes are read from the database from now on, in order."""
    reads: list[int] = []
    real = feedback_store.guild_votes

    async def counted(db: Database, guild_id: int, user_id: int | None = None) -> list[Vote]:
        reads.append(guild_id)
        return await real(db, guild_id, user_id)

    monkeypatch.setattr(feedback_store, "guild_votes", counted)
    return reads


async def test_the_kept_personalization_is_a_rebuild_at_every_step(
    loaded_app: App, tmp_path: Path, load_pages: LoadPages
) -> None:
    app, ids = loaded_app, await papers(loaded_app)
    await check(app)
    for user in READERS:  # enough of each kind for logistic models
        for index in range(4):
            await app.feedback.vote(GUILD, user, ids[index * 7 + user], 1, FIXED_NOW)
            await app.feedback.vote(GUILD, user, ids[index * 5 + user + 100], -1, FIXED_NOW)
    await check(app)
    await app.feedback.vote(GUILD, 10, ids[17], 1, FIXED_NOW)  # unvote
    await app.feedback.vote(GUILD, 11, ids[116], 1, FIXED_NOW)  # 👎 becomes 👍
    await app.feedback.mute(GUILD, 12, "reasoning", FIXED_NOW)
    await app.feedback.mute(GUILD, SERVER, "gan", FIXED_NOW)
    await check(app)
    await app.feedback.reset(GUILD, 11)
    await app.feedback.unmute(GUILD, SERVER, "gan")
    await check(app)
    # A corpus change: two papers more, every vote kept.
    extra = write(tmp_path / "extra-icml-2025.txt", page("Zeta Vote Paper", "Eta Vote Paper"))
    await load_pages(app, app.settings.corpus.path, extra)
    assert len(await papers(app)) == len(ids) + 2
    await check(app)
    await app.feedback.vote(GUILD, 12, ids[3], -1, FIXED_NOW)
    await check(app)


async def test_another_process_vote_and_a_data_delete_are_seen(
    loaded_app: App, tmp_path: Path
) -> None:
    app, ids = loaded_app, await papers(loaded_app)
    await app.feedback.vote(GUILD, 10, ids[0], 1, FIXED_NOW)
    await check(app)  # the copy exists now
    other = await App.open(settings_for(tmp_path / "paperbot.sqlite3"))
    try:
        await other.feedback.vote(GUILD, 11, ids[1], -1, FIXED_NOW)
        await other.feedback.mute(GUILD, 10, "reasoning", FIXED_NOW)
        await check(app)
        await app.user_data.forget(GUILD, 11)
        await check(app)
        corpus = await app.digest.corpus_arrays()
        kept = await app.feedback.personalization(GUILD, corpus, AUDIENCE)
        assert kept is not None
        assert 11 not in kept.readers
    finally:
        await other.close()


async def test_a_vote_here_is_applied_without_reading_the_votes(
    loaded_app: App, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, ids = loaded_app, await papers(loaded_app)
    corpus = await app.digest.corpus_arrays()
    await app.feedback.vote(GUILD, 10, ids[0], 1, FIXED_NOW)
    await app.feedback.personalization(GUILD, corpus, AUDIENCE)
    reads = count_vote_reads(monkeypatch)
    await app.feedback.vote(GUILD, 10, ids[2], -1, FIXED_NOW)
    await app.feedback.vote(GUILD, 11, ids[2], -1, FIXED_NOW)
    kept = await app.feedback.personalization(GUILD, corpus, AUDIENCE)
    assert kept is not None
    assert reads == []
    assert list(kept.disliked) == list(corpus.positions([ids[2]]))
    other = await App.open(settings_for(tmp_path / "paperbot.sqlite3"))
    try:
        await other.feedback.vote(GUILD, 12, ids[4], 1, FIXED_NOW)
    finally:
        await other.close()
    kept = await app.feedback.personalization(GUILD, corpus, AUDIENCE)
    assert kept is not None
    assert reads == [GUILD]
    assert 12 in kept.readers


@pytest.mark.parametrize(
    ("capacity", "memory", "rereads"), [(2, 2**30, 0), (1, 2**30, 1), (2, 1, 1)]
)
async def test_the_least_recent_server_is_dropped_past_the_count_or_memory(
    loaded_app: App, monkeypatch: pytest.MonkeyPatch, capacity: int, memory: int, rereads: int
) -> None:
    app, ids = loaded_app, await papers(loaded_app)
    corpus = await app.digest.corpus_arrays()
    profiles = GuildProfiles(app._db, app.topics, capacity=capacity, memory=memory)
    for guild in (GUILD, GUILD + 1):
        await app.feedback.vote(guild, 10, ids[guild], 1, FIXED_NOW)
        assert await profiles.personalization(guild, corpus, AUDIENCE) is not None
    reads = count_vote_reads(monkeypatch)
    kept = await profiles.personalization(GUILD + 1, corpus, AUDIENCE)  # the most recent: kept
    assert kept is not None
    assert reads == []
    await profiles.personalization(GUILD, corpus, AUDIENCE)
    assert len(reads) == rereads


async def test_the_kept_server_count_comes_from_the_config(
    loaded_app: App, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = await papers(loaded_app)
    settings = settings_for(
        tmp_path / "paperbot.sqlite3", feedback=FeedbackSettings(kept_servers=1)
    )
    app = await App.open(settings)
    try:
        corpus = await app.digest.corpus_arrays()
        for guild in (GUILD, GUILD + 1):
            await app.feedback.vote(guild, 10, ids[guild], 1, FIXED_NOW)
            assert await app.feedback.personalization(guild, corpus, AUDIENCE) is not None
        reads = count_vote_reads(monkeypatch)
        await app.feedback.personalization(GUILD, corpus, AUDIENCE)
        assert reads == [GUILD]  # one server kept: the other's copy was dropped
    finally:
        await app.close()
