"""FeedbackService over the shipped corpus: votes steer the picking path,
mutes resolve like subscriptions, personal /search order, more like this."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from paperbot.core import profile, profile_state
from paperbot.core.topics import TopicInputError
from paperbot.services.app import App
from paperbot.services.feedback import SERVER
from paperbot.storage import feedback as feedback_store
from tests.support.app import FIXED_NOW, settings_for

GUILD, USER, OTHER = 1, 10, 11


async def test_nothing_to_personalize_without_votes_or_mutes(loaded_app: App) -> None:
    corpus = await loaded_app.digest.corpus_arrays()
    assert await loaded_app.feedback.personalization(GUILD, corpus, {USER}) is None


async def test_a_disliked_paper_leaves_the_reader_picks(loaded_app: App) -> None:
    app = loaded_app
    await app.subscriptions.subscribe(GUILD, USER, "reasoning", FIXED_NOW)
    plan, _ = await app.digest.plan(guild_id=GUILD, channel_id=None, count=5, reader=USER)
    first = plan.picks[0].paper_id
    assert await app.feedback.vote(GUILD, USER, first, -1, FIXED_NOW) == "added"
    again, _ = await app.digest.plan(guild_id=GUILD, channel_id=None, count=5, reader=USER)
    assert first not in {p.paper_id for p in again.picks}
    plain, _ = await app.digest.plan(
        guild_id=GUILD, channel_id=None, count=5, reader=USER, personalized=False
    )
    assert plain.picks[0].paper_id == first


async def test_mute_and_unmute(loaded_app: App) -> None:
    feedback = loaded_app.feedback
    muted = await feedback.mute(GUILD, USER, "强化学习", FIXED_NOW)
    assert muted.changed
    assert not (await feedback.mute(GUILD, USER, "reinforcement learning", FIXED_NOW)).changed
    await feedback.mute(GUILD, SERVER, "gan", FIXED_NOW)
    assert {m.user_id for m in await feedback.mutes(GUILD, USER)} == {USER, SERVER}
    assert await feedback.suggest_muted(GUILD, USER, "")
    assert (await feedback.unmute(GUILD, USER, muted.topic.key)).changed
    assert not (await feedback.unmute(GUILD, USER, muted.topic.key)).changed
    with pytest.raises(TopicInputError):
        await feedback.mute(GUILD, USER, "   ", FIXED_NOW)


async def test_a_stored_mute_is_read_as_its_text_reads_today(loaded_app: App) -> None:
    """A mute stored by an older vocabulary (语音识别 keyed by its part 语音,
    speech) mutes what its text means now, as subscriptions do: speech
    recognition, not every speech paper."""
    app = loaded_app
    await feedback_store.add_mute(app._db, GUILD, USER, "keyword", "speech", "语音识别", FIXED_NOW)
    await app.subscriptions.subscribe(GUILD, USER, "Speech and audio", FIXED_NOW)
    asr = set((await app.topics.matches(app.topics.resolve("语音识别"))).ids.tolist())
    stored = app.topics.stored("keyword", "speech", "语音识别")
    speech = set((await app.topics.matches(stored)).ids.tolist())  # the old reading
    assert asr
    assert speech - asr
    plan, _ = await app.digest.plan(guild_id=GUILD, channel_id=None, count=10, reader=USER)
    picked = {p.paper_id for p in plan.picks}
    assert not picked & asr
    assert picked & (speech - asr)


async def test_server_mute_removes_papers_from_the_server_digest(loaded_app: App) -> None:
    app = loaded_app
    await app.subscriptions.subscribe(GUILD, USER, "reasoning", FIXED_NOW)
    await app.feedback.mute(GUILD, SERVER, "reasoning", FIXED_NOW)
    matching = set((await app.topics.matches(app.topics.resolve("reasoning"))).ids.tolist())
    plan, _ = await app.digest.plan(guild_id=GUILD, channel_id=None, count=5)
    assert not matching & {p.paper_id for p in plan.picks}


async def test_personal_order_puts_disliked_last(loaded_app: App) -> None:
    app = loaded_app
    corpus = await app.digest.corpus_arrays()
    ids = [int(i) for i in corpus.ids[:6]]
    assert await app.feedback.personal_order(GUILD, USER, corpus, ids) == list(range(6))
    await app.feedback.vote(GUILD, USER, ids[0], -1, FIXED_NOW)
    order = await app.feedback.personal_order(GUILD, USER, corpus, ids)
    assert order[-1] == 0
    assert sorted(order) == list(range(6))


async def test_similar_and_find_paper(loaded_app: App) -> None:
    app = loaded_app
    anchor = await app.feedback.find_paper("混合专家 路由")
    assert anchor is not None
    corpus = await app.digest.corpus_arrays()
    found = await app.feedback.similar(corpus, anchor.id, 5)
    assert 1 <= len(found) <= 5
    assert anchor.id not in {s.paper.id for s in found}
    assert any(s.shared for s in found)
    assert await app.feedback.find_paper(str(anchor.id)) == anchor


async def test_summary_and_reset(loaded_app: App) -> None:
    app = loaded_app
    corpus = await app.digest.corpus_arrays()
    await app.feedback.vote(GUILD, USER, int(corpus.ids[0]), 1, FIXED_NOW)
    await app.feedback.vote(GUILD, USER, int(corpus.ids[1]), -1, FIXED_NOW)
    summary = await app.feedback.summary(GUILD, USER, corpus)
    assert (summary.likes, summary.dislikes, summary.model) == (1, 1, "rocchio")
    assert await app.feedback.reset(GUILD, USER) == 2
    assert not await app.feedback.has_votes(GUILD, USER)


async def test_a_vote_through_another_process_orders_search_here(
    loaded_app: App, tmp_path: Path
) -> None:
    # Sharded bots share one database: this process asked before the vote,
    # so it must notice the vote without a restart.
    app = loaded_app
    corpus = await app.digest.corpus_arrays()
    assert not await app.feedback.has_votes(GUILD, USER)
    other = await App.open(settings_for(tmp_path / "paperbot.sqlite3"))
    try:
        await other.feedback.vote(GUILD, USER, int(corpus.ids[0]), 1, FIXED_NOW)
        assert await app.feedback.has_votes(GUILD, USER)
        assert not await app.feedback.has_votes(GUILD + 1, USER)
        await other.feedback.reset(GUILD, USER)
        assert not await app.feedback.has_votes(GUILD, USER)
    finally:
        await other.close()


async def test_search_and_show_use_the_model_the_digest_keeps(
    loaded_app: App, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One source of truth: a vote through another process reaches the
    # personal /search order and /feedback show through the server's kept
    # state, the very model the digest picks with, fitted once.
    app = loaded_app
    corpus = await app.digest.corpus_arrays()
    ids = [int(i) for i in corpus.ids[:6]]
    await app.feedback.vote(GUILD, USER, ids[1], 1, FIXED_NOW)
    assert await app.feedback.personalization(GUILD, corpus, {USER}) is not None
    other = await App.open(settings_for(tmp_path / "paperbot.sqlite3"))
    try:
        await other.feedback.vote(GUILD, USER, ids[0], -1, FIXED_NOW)
    finally:
        await other.close()
    kept = await app.feedback.personalization(GUILD, corpus, {USER})
    assert kept is not None
    calls: list[str] = []

    def counted(module: ModuleType, name: str) -> None:
        real = getattr(module, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, call)

    counted(profile, "reader_models")
    counted(profile_state, "reader_models")
    counted(feedback_store, "guild_votes")
    assert await app.feedback.reader_model(GUILD, USER, corpus) is kept.readers[USER].model
    order = await app.feedback.personal_order(GUILD, USER, corpus, ids)
    assert order[-1] == 0
    assert calls == []  # nothing fitted again, no vote read again
