"""Subscriptions: the store (real SQLite in tmp_path) and the services over it."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest

from paperbot.config import BUNDLED_TOPICS
from paperbot.core import limits
from paperbot.core.topics import FEEDBACK_REASON, TopicInputError, parse_vocabulary
from paperbot.services.subscriptions import (
    MAX_PER_USER,
    SubscriptionLimitError,
    SubscriptionService,
)
from paperbot.services.topics import TopicsConfigError, TopicService, load_vocabulary
from paperbot.storage import subscriptions as store
from paperbot.storage.db import Database
from tests.support.app import FIXED_NOW
from tests.support.corpus import LoadPages

GUILD_A, GUILD_B = 111, 222
ALICE, BOB = 1001, 1002


@pytest.fixture
async def topics(loaded_db: Database) -> TopicService:
    return TopicService(loaded_db, load_vocabulary(BUNDLED_TOPICS))


@pytest.fixture
async def service(topics: TopicService) -> SubscriptionService:
    return SubscriptionService(topics.db, topics)


# -- store --------------------------------------------------------------------


async def test_store_add_is_unique_per_guild_user_topic(db: Database) -> None:
    add = store.add
    assert await add(db, GUILD_A, ALICE, "topic", "rl", "RL", FIXED_NOW, 25) == "added"
    assert await add(db, GUILD_A, ALICE, "topic", "rl", "RL", FIXED_NOW, 25) == "exists"
    assert await add(db, GUILD_A, ALICE, "keyword", "rl", "rl", FIXED_NOW, 25) == "added"
    assert await add(db, GUILD_B, ALICE, "topic", "rl", "RL", FIXED_NOW, 25) == "added"
    assert await add(db, GUILD_A, BOB, "topic", "rl", "RL", FIXED_NOW, 25) == "added"
    assert await store.count_user(db, GUILD_A, ALICE) == 2
    mine = await store.user_subscriptions(db, GUILD_A, ALICE)
    assert [(s.kind, s.topic) for s in mine] == [("topic", "rl"), ("keyword", "rl")]
    assert mine[0].created_at == FIXED_NOW


async def test_store_limit_is_checked_in_the_same_transaction(db: Database) -> None:
    results = await asyncio.gather(
        *(
            store.add(db, GUILD_A, ALICE, "keyword", f"k{i}", f"k{i}", FIXED_NOW, 3)
            for i in range(6)
        )
    )
    assert sorted(results) == ["added"] * 3 + ["limit"] * 3
    assert await store.count_user(db, GUILD_A, ALICE) == 3


async def test_store_replace_swaps_in_one_step(db: Database) -> None:
    add, replace = store.add, store.replace
    await add(db, GUILD_A, ALICE, "keyword", "moe", "MoE", FIXED_NOW, 2)
    await add(db, GUILD_A, ALICE, "keyword", "rl", "rl", FIXED_NOW, 2)
    # At the limit: the old one's slot is the new one's.
    swapped = await replace(
        db, GUILD_A, ALICE, ("keyword", "moe"), ("topic", "m", "M"), FIXED_NOW, 2
    )
    assert swapped == "added"
    mine = await store.user_subscriptions(db, GUILD_A, ALICE)
    assert [(s.kind, s.topic, s.label) for s in mine] == [
        ("keyword", "rl", "rl"),
        ("topic", "m", "M"),
    ]
    # Already followed: the old one still goes.
    again = await replace(db, GUILD_A, ALICE, ("keyword", "rl"), ("topic", "m", "M"), FIXED_NOW, 2)
    assert again == "exists"
    assert [s.topic for s in await store.user_subscriptions(db, GUILD_A, ALICE)] == ["m"]
    # The old one gone meanwhile and the user at the limit: nothing changes.
    await add(db, GUILD_A, ALICE, "keyword", "x", "x", FIXED_NOW, 2)
    full = await replace(db, GUILD_A, ALICE, ("keyword", "gone"), ("topic", "n", "N"), FIXED_NOW, 2)
    assert full == "limit"
    assert [s.topic for s in await store.user_subscriptions(db, GUILD_A, ALICE)] == ["m", "x"]
    assert await store.count_user(db, GUILD_B, ALICE) == 0


async def test_store_guild_topics_groups_subscribers(db: Database) -> None:
    for guild, user, topic in [
        (GUILD_A, BOB, "rl"),
        (GUILD_A, ALICE, "rl"),
        (GUILD_A, ALICE, "scaling-laws"),
        (GUILD_B, 3003, "rl"),
    ]:
        await store.add(db, guild, user, "topic", topic, topic, FIXED_NOW, 25)
    groups = await store.guild_topics(db, GUILD_A)
    assert [(g.topic, g.user_ids) for g in groups] == [
        ("rl", (ALICE, BOB)),
        ("scaling-laws", (ALICE,)),
    ]
    assert await store.subscribed_guilds(db) == [GUILD_A, GUILD_B]
    counts = await store.topic_counts(db)
    assert [(c.topic, c.subscribers) for c in counts] == [("rl", 3), ("scaling-laws", 1)]
    listing = await store.list_subscriptions(db, guild_id=GUILD_A, user_id=ALICE)
    assert [s.topic for s in listing] == ["rl", "scaling-laws"]
    assert len(await store.list_subscriptions(db)) == 4
    assert await store.remove(db, GUILD_A, ALICE, "topic", "rl") is True
    assert await store.remove(db, GUILD_A, ALICE, "topic", "rl") is False


async def test_user_text_is_a_bound_parameter(db: Database) -> None:
    evil = "x'); DROP TABLE subscriptions; --"
    assert await store.add(db, GUILD_A, ALICE, "keyword", evil, evil, FIXED_NOW, 25) == "added"
    assert [s.topic for s in await store.user_subscriptions(db, GUILD_A, ALICE)] == [evil]


async def test_subscriptions_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "restart.sqlite3"
    db = await Database.open(path)
    await store.add(db, GUILD_A, ALICE, "topic", "rl", "RL", FIXED_NOW, 25)
    await db.close()
    db = await Database.open(path)
    try:
        assert [s.topic for s in await store.user_subscriptions(db, GUILD_A, ALICE)] == ["rl"]
    finally:
        await db.close()


# -- vocabulary loading -------------------------------------------------------


def test_load_vocabulary_errors_name_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "topics.toml"
    bad.write_text('[[topic]]\nid = "a"\nname = "A"\nzh = "甲"\nextra = 1\n', encoding="utf-8")
    with pytest.raises(TopicsConfigError, match=rf"topics.path: {bad}:5: unknown key 'extra'"):
        load_vocabulary(bad)
    with pytest.raises(TopicsConfigError, match="cannot read"):
        load_vocabulary(tmp_path / "missing.toml")
    bad.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(TopicsConfigError, match="not UTF-8"):
        load_vocabulary(bad)


# -- topic service: matching cache and coverage --------------------------------


async def test_shipped_vocabulary_covers_the_shipped_corpus(topics: TopicService) -> None:
    report = await topics.coverage()
    assert report.papers > 250
    assert all(count >= 1 for _, count in report.counts), [
        t.key for t, n in report.counts if n == 0
    ]
    assert report.covered_share >= 0.85


async def test_every_match_explains_itself(topics: TopicService) -> None:
    from paperbot.storage import papers

    by_id = {p.id: p for p in await papers.list_papers(topics.db)}
    for topic in topics.vocabulary.topics[:15]:
        ids = (await topics.matches(topic)).ids.tolist()
        assert ids, f"{topic.key} matches no paper: nothing to explain"
        for paper_id in ids:
            reasons = topics.explain(topic, by_id[paper_id], matched=True)
            # Every match names the words it rests on, or says the feedback took it.
            assert reasons, (topic.key, paper_id)
            assert reasons[0] != FEEDBACK_REASON, (topic.key, paper_id, reasons)


async def test_matches_are_cached_until_the_corpus_changes(
    topics: TopicService, tmp_path: Path, load_pages: LoadPages
) -> None:
    rl = topics.resolve("reinforcement learning")
    first = await topics.matches(rl)
    assert await topics.matches(rl) is first
    page = tmp_path / "extra.txt"
    page.write_text(
        "📚 预训练¶\n\n🧠 ICML2026 · 1 篇论文解读\n\n"
        "Reinforcement Learning Without Rewards: 提出无奖励的强化学习方法。\n",
        encoding="utf-8",
    )
    await load_pages(topics.db, page)
    second = await topics.matches(rl)
    assert second is not first
    assert len(second) == len(first) + 1


async def test_retired_topic_matches_nothing(topics: TopicService) -> None:
    retired = topics.stored("topic", "no-such-topic", "Old topic")
    assert topics.is_retired(retired)
    assert len(await topics.matches(retired)) == 0


# -- subscription service ----------------------------------------------------


async def test_subscribe_reports_topic_and_match_count(service: SubscriptionService) -> None:
    result = await service.subscribe(GUILD_A, ALICE, "缩放定律", FIXED_NOW)
    assert result.created
    assert result.total == 1
    assert result.topic.key == "scaling-laws"
    assert result.match_count == len(await service.topics.matches(result.topic)) > 0


async def test_a_keyword_without_matches_says_which_topics_come_close(
    service: SubscriptionService,
) -> None:
    result = await service.subscribe(GUILD_A, ALICE, "quantization-aware training", FIXED_NOW)
    assert result.match_count == 0
    assert [t.key for t in result.close_to] == ["quantization"]
    matched = await service.subscribe(GUILD_A, ALICE, "缩放定律", FIXED_NOW)
    assert matched.close_to == ()  # matches: nothing to say
    nameless = await service.subscribe(GUILD_A, ALICE, "Hyena hierarchy", FIXED_NOW)
    assert nameless.close_to == ()  # names no topic


async def test_a_keyword_without_matches_offers_topics_to_follow_instead(
    service: SubscriptionService,
) -> None:
    # Close by its words (the digest's near topics), or by its spelling
    # (what autocomplete ranks above the keyword itself).
    lora = await service.subscribe(GUILD_A, ALICE, "lora adapters", FIXED_NOW)
    assert [t.key for t in lora.instead] == ["fine-tuning-peft"]
    spelled = await service.subscribe(GUILD_A, ALICE, "attention sink", FIXED_NOW)
    assert (spelled.close_to, [t.key for t in spelled.instead]) == ((), ["attention"])
    assert (await service.subscribe(GUILD_A, ALICE, "Hyena hierarchy", FIXED_NOW)).instead == ()
    assert (await service.subscribe(GUILD_A, ALICE, "缩放定律", FIXED_NOW)).instead == ()


async def test_switch_follows_the_offered_topic_in_place_of_the_keyword(
    service: SubscriptionService,
) -> None:
    keyword = await service.subscribe(GUILD_A, ALICE, "lora adapters", FIXED_NOW)
    await service.subscribe(GUILD_A, ALICE, "Hyena", FIXED_NOW)
    (peft,) = keyword.instead
    switched = await service.switch(GUILD_A, ALICE, keyword.topic, peft, FIXED_NOW)
    assert (switched.topic, switched.created, switched.total) == (peft, True, 2)
    assert switched.match_count == len(await service.topics.matches(peft)) > 0
    followed = [f.topic.key for f in await service.followed(GUILD_A, ALICE)]
    assert followed == ["hyena", "fine-tuning-peft"]


async def test_switch_at_the_limit_after_the_keyword_went_is_refused(
    service: SubscriptionService,
) -> None:
    keyword = await service.subscribe(GUILD_A, ALICE, "lora adapters", FIXED_NOW)
    await service.unsubscribe(GUILD_A, ALICE, "lora adapters")
    for i in range(MAX_PER_USER):
        await service.subscribe(GUILD_A, ALICE, f"keyword{i}", FIXED_NOW)
    with pytest.raises(SubscriptionLimitError):
        await service.switch(GUILD_A, ALICE, keyword.topic, keyword.instead[0], FIXED_NOW)
    assert await store.count_user(service.db, GUILD_A, ALICE) == MAX_PER_USER


async def test_subscribing_twice_is_a_no_op(service: SubscriptionService) -> None:
    await service.subscribe(GUILD_A, ALICE, "scaling laws", FIXED_NOW)
    again = await service.subscribe(GUILD_A, ALICE, "Scaling Law", FIXED_NOW)
    assert not again.created
    assert again.total == 1


async def test_limit_per_user_per_server(service: SubscriptionService) -> None:
    for i in range(MAX_PER_USER):
        await service.subscribe(GUILD_A, ALICE, f"keyword{i}", FIXED_NOW)
    with pytest.raises(SubscriptionLimitError):
        await service.subscribe(GUILD_A, ALICE, "one more keyword", FIXED_NOW)
    # An existing topic is still a friendly no-op at the limit, and other
    # servers and users have their own budgets.
    assert not (await service.subscribe(GUILD_A, ALICE, "keyword3", FIXED_NOW)).created
    assert (await service.subscribe(GUILD_B, ALICE, "one more keyword", FIXED_NOW)).created
    assert (await service.subscribe(GUILD_A, BOB, "one more keyword", FIXED_NOW)).created


@pytest.mark.parametrize("text", ["", "x" * 101, "1234", "？？"])
async def test_unusable_text_is_refused(service: SubscriptionService, text: str) -> None:
    with pytest.raises(TopicInputError):
        await service.subscribe(GUILD_A, ALICE, text, FIXED_NOW)
    assert await store.count_user(service.db, GUILD_A, ALICE) == 0


async def test_isolation_between_servers_and_users(service: SubscriptionService) -> None:
    await service.subscribe(GUILD_A, ALICE, "DPO", FIXED_NOW)
    await service.subscribe(GUILD_A, BOB, "Hyena", FIXED_NOW)
    await service.subscribe(GUILD_B, ALICE, "tokenization", FIXED_NOW)
    # An alias naming part of its topic is a keyword within it (`resolve`).
    assert [f.topic.key for f in await service.followed(GUILD_A, ALICE)] == ["dpo"]
    assert [f.topic.key for f in await service.followed(GUILD_A, BOB)] == ["hyena"]
    assert [f.topic.key for f in await service.followed(GUILD_B, ALICE)] == ["tokenization"]
    assert await service.followed(GUILD_B, BOB) == []
    # Bob cannot remove Alice's topic, nor Alice her topic in another server.
    assert not (await service.unsubscribe(GUILD_A, BOB, "DPO")).removed
    assert not (await service.unsubscribe(GUILD_B, ALICE, "DPO")).removed
    assert [c.value for c in await service.suggest_followed(GUILD_A, BOB, "")] == ["hyena"]


async def test_unsubscribe(service: SubscriptionService) -> None:
    await service.subscribe(GUILD_A, ALICE, "scaling laws", FIXED_NOW)
    await service.subscribe(GUILD_A, ALICE, "Hyena", FIXED_NOW)
    gone = await service.unsubscribe(GUILD_A, ALICE, "縮放定律")  # any way of saying it
    assert gone.removed
    assert gone.topic.key == "scaling-laws"
    missing = await service.unsubscribe(GUILD_A, ALICE, "tokenization")
    assert not missing.removed
    assert missing.topic.key == "tokenization"
    assert (await service.unsubscribe(GUILD_A, ALICE, "hyena")).removed
    assert await service.followed(GUILD_A, ALICE) == []


async def test_unsubscribe_a_retired_topic_by_its_id(service: SubscriptionService) -> None:
    await store.add(service.db, GUILD_A, ALICE, "topic", "old-topic", "old", FIXED_NOW, 25)
    [followed] = await service.followed(GUILD_A, ALICE)
    assert followed.retired
    assert followed.match_count == 0
    [choice] = await service.suggest_followed(GUILD_A, ALICE, "")
    assert choice.value == "old-topic"
    assert "retired" in choice.name
    assert (await service.unsubscribe(GUILD_A, ALICE, choice.value)).removed


async def test_common_words_are_refused_but_an_old_such_keyword_can_be_left(
    service: SubscriptionService,
) -> None:
    with pytest.raises(TopicInputError, match="only common words"):
        await service.subscribe(GUILD_A, ALICE, "the", FIXED_NOW)
    # Stored before the refusal existed: the reader can still drop it.
    await store.add(service.db, GUILD_A, ALICE, "keyword", "the", "the", FIXED_NOW, 25)
    assert (await service.unsubscribe(GUILD_A, ALICE, "the")).removed
    assert await service.followed(GUILD_A, ALICE) == []


async def test_followed_lists_oldest_first_with_counts(service: SubscriptionService) -> None:
    await service.subscribe(GUILD_A, ALICE, "tokenization", FIXED_NOW)
    await service.subscribe(GUILD_A, ALICE, "learning", FIXED_NOW + timedelta(seconds=1))
    followed = await service.followed(GUILD_A, ALICE)
    assert [f.topic.key for f in followed] == ["tokenization", "learning"]
    assert all(f.match_count > 0 for f in followed)
    assert followed[1].topic.is_keyword


async def test_unsubscribe_autocomplete_within_discord_limits(
    service: SubscriptionService,
) -> None:
    for i in range(MAX_PER_USER):
        await service.subscribe(GUILD_A, ALICE, f"混合 keyword {'x' * 80} {i}", FIXED_NOW)
    choices = await service.suggest_followed(GUILD_A, ALICE, "")
    assert len(choices) == limits.AUTOCOMPLETE_CHOICES_MAX
    for choice in choices:
        assert 1 <= len(choice.name) <= limits.CHOICE_NAME_MAX
        assert 1 <= len(choice.value) <= limits.CHOICE_VALUE_MAX
        # Whatever autocomplete sends back removes exactly that subscription.
    assert (await service.unsubscribe(GUILD_A, ALICE, choices[5].value)).removed
    assert await store.count_user(service.db, GUILD_A, ALICE) == MAX_PER_USER - 1


async def test_unsubscribe_autocomplete_filters_by_text(service: SubscriptionService) -> None:
    await service.subscribe(GUILD_A, ALICE, "scaling laws", FIXED_NOW)
    await service.subscribe(GUILD_A, ALICE, "tokenization", FIXED_NOW)
    assert [c.value for c in await service.suggest_followed(GUILD_A, ALICE, "分词")] == [
        "tokenization"
    ]
    # Nothing contains the text: offer everything rather than nothing.
    assert len(await service.suggest_followed(GUILD_A, ALICE, "zzz")) == 2


async def test_demands_for_the_digest(service: SubscriptionService) -> None:
    await service.subscribe(GUILD_A, ALICE, "scaling laws", FIXED_NOW)
    await service.subscribe(GUILD_A, BOB, "缩放定律", FIXED_NOW)
    await service.subscribe(GUILD_A, BOB, "Toeplitz", FIXED_NOW)
    await service.subscribe(GUILD_B, 3003, "tokenization", FIXED_NOW)
    demands = await service.demands(GUILD_A)
    assert [(d.topic, d.subscribers) for d in demands] == [
        ("Scaling laws · 缩放定律", (ALICE, BOB)),
        ("“Toeplitz” (keyword · 关键词)", (BOB,)),
    ]
    scaling = await service.topics.matches(service.topics.resolve("scaling laws"))
    assert demands[0].ids.tolist() == scaling.ids.tolist()
    assert len(demands[1].ids) >= 1


def test_shipped_vocabulary_loads() -> None:
    assert len(load_vocabulary(BUNDLED_TOPICS)) == len(
        parse_vocabulary(BUNDLED_TOPICS.read_text("utf-8"))
    )


# -- digest demands: one per topic id ----------------------------------------


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["scaling laws"], [("Scaling laws · 缩放定律", (7,))]),
        (["scaling laws", "缩放律"], [("Scaling laws · 缩放定律", (7,))]),
        # The issue's own example: an alias is a keyword within its topic,
        # and a followed topic covers it.
        (["scaling laws", "Chinchilla"], [("Scaling laws · 缩放定律", (7,))]),
        (
            ["Chinchilla", " ", "compute-optimal", "scaling-laws"],
            [("Scaling laws · 缩放定律", (7,))],
        ),
        (["Chinchilla"], [("“Chinchilla” (keyword", (7,))]),
        (
            ["缩放律", " ", "縮放定律", "scaling-laws"],
            [("Scaling laws · 缩放定律", (7,))],
        ),
        (
            ["scaling laws", "alignment and RLHF"],
            [("Scaling laws · 缩放定律", (7,)), ("Alignment and RLHF", (7,))],
        ),
    ],
)
async def test_reader_demands_count_synonyms_once(
    service: SubscriptionService, texts: list[str], expected: list[tuple[str, tuple[int, ...]]]
) -> None:
    found = await service.reader_demands(texts, 7)
    assert len(found) == len(expected)
    for demand, (label, users) in zip(found, expected, strict=True):
        assert demand.topic.startswith(label)
        assert demand.subscribers == users
        assert len(demand.ids) > 0


async def test_reader_demands_need_a_topic(service: SubscriptionService) -> None:
    with pytest.raises(TopicInputError):
        await service.reader_demands(["", "  "], 7)


async def test_server_demands_merge_synonyms_and_keywords_naming_a_topic(
    service: SubscriptionService,
) -> None:
    await service.subscribe(GUILD_A, ALICE, "scaling laws", FIXED_NOW)
    await service.subscribe(GUILD_A, BOB, "Chinchilla", FIXED_NOW)
    # A keyword stored before the vocabulary knew it as a topic's alias.
    db = service.db
    await store.add(
        db, GUILD_A, 1003, "keyword", "compute optimal", "compute-optimal", FIXED_NOW, 25
    )
    demands = await service.demands(GUILD_A)
    assert [d.topic for d in demands] == ["Scaling laws · 缩放定律"]
    assert sorted(demands[0].subscribers) == [ALICE, BOB, 1003]


async def test_a_keyword_within_a_topic_nobody_follows_stays_narrow(
    service: SubscriptionService,
) -> None:
    """The digest reads a stored alias keyword as /subscribe and the preview
    do: DPO within alignment, not the whole topic."""
    await service.subscribe(GUILD_A, BOB, "DPO", FIXED_NOW)
    (dpo,) = await service.demands(GUILD_A)
    (whole,) = await service.reader_demands(["alignment and RLHF"], 7)
    (previewed,) = await service.reader_demands(["DPO"], 7)
    assert dpo.topic.startswith("“DPO” (keyword")
    assert list(dpo.ids) == list(previewed.ids)
    assert 0 < len(dpo.ids) < len(whole.ids)
    assert list((await service.user_demands(BOB))[0].ids) == list(dpo.ids)
