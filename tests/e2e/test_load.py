"""200 `/search` interactions arriving at once are all acknowledged within 3 seconds.

A behavioural check of concurrency with a generous bound (Discord's own
deadline), not a micro-benchmark: `/about`, which does almost nothing, runs
the same way first as the in-process baseline and both are reported.
"""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Callable
from typing import Any

from tests.fake_discord import FakeUser, InteractionResult
from tests.support.e2e import E2E

BURST = 200
DEADLINE = 3.0
QUERIES = ("diffusion", "speculative decoding", "扩散模型", "scaling laws", "RLHF reward model")


async def burst(
    e2e: E2E, command: str, options: Callable[[int], dict[str, Any]]
) -> list[InteractionResult]:
    """Dispatch BURST interactions back to back, then wait for every answer."""
    await e2e.slash(command, user=FakeUser(name="warm-up"), **options(0))  # first-use costs
    # 40 people x 5 searches each: within the per-user cooldown (5 per 10 s).
    users = [FakeUser(name=f"reader{i}") for i in range(BURST // 5)]
    results = [
        await e2e.fake.slash(
            command, user=users[i % len(users)], guild=e2e.guild, wait=False, **options(i)
        )
        for i in range(BURST)
    ]
    await asyncio.gather(*(e2e.fake.wait_answered(r, within=30) for r in results))
    return results


def ack_seconds(results: list[InteractionResult]) -> list[float]:
    return sorted(r.ack_seconds for r in results if r.ack_seconds is not None)


def summary(name: str, acks: list[float]) -> str:
    p95 = acks[int(len(acks) * 0.95) - 1]
    return (
        f"{name}: {len(acks)} acked, median {statistics.median(acks) * 1000:.0f} ms, "
        f"p95 {p95 * 1000:.0f} ms, max {acks[-1] * 1000:.0f} ms"
    )


async def test_200_searches_at_once_are_all_acknowledged_in_time(e2e: E2E) -> None:
    # The baseline is only measured: its own lateness is not what this test is about.
    e2e.fake.ack_deadline = float("inf")
    baseline = ack_seconds(await burst(e2e, "about", lambda _i: {}))
    e2e.fake.ack_deadline = DEADLINE
    results = await burst(e2e, "search", lambda i: {"query": QUERIES[i % len(QUERIES)]})
    acks = ack_seconds(results)
    print("\n" + summary("/about baseline", baseline) + "\n" + summary("/search", acks))
    print(
        f"/search vs /about: median {statistics.median(acks) / statistics.median(baseline):.2f}x,"
        f" max {acks[-1] / baseline[-1]:.2f}x"
    )
    assert len(acks) == BURST, "every interaction must be acknowledged"
    assert acks[-1] <= DEADLINE
    assert all(r.callback_type in (4, 5) for r in results)
    texts = [r.text() for r in results]
    assert not any("error id" in t for t in texts)


TOPICS = ("scaling laws", "RLHF", "量化", "tokenization", "in-context learning")


async def test_200_subscribes_at_once_are_all_acknowledged_in_time(e2e: E2E) -> None:
    """Each one writes a subscription, and the writes queue on the database's
    one connection: the late ones must say "thinking" first."""
    # Reader i % 40 gets topic i // 40: five different topics each.
    per_topic = BURST // len(TOPICS)
    results = await burst(e2e, "subscribe", lambda i: {"topic": TOPICS[i // per_topic]})
    acks = ack_seconds(results)
    print("\n" + summary("/subscribe", acks))
    assert len(acks) == BURST, "every interaction must be acknowledged"
    assert acks[-1] <= DEADLINE
    texts = [r.text() for r in results]
    assert not any("error id" in t for t in texts)
    assert sum(t.startswith("Subscribed to") for t in texts) == BURST


async def test_200_keystrokes_at_once_are_all_answered_in_time(e2e: E2E) -> None:
    """40 readers typing a title into /similar, five keystrokes each: every
    keystroke runs a search, and an autocomplete cannot say "thinking". A
    newer keystroke cancels the same reader's older search (Discord shows
    only the newest answer), so each reader's last keystroke gets choices."""
    await e2e.autocomplete("similar", focused="paper", paper="warm-up")
    readers = [FakeUser(name=f"typist{i}") for i in range(BURST // 5)]
    typed = [(readers[i % len(readers)], QUERIES[i % len(QUERIES)]) for i in range(BURST)]
    results = [
        await e2e.fake.keystroke(
            "similar",
            focused="paper",
            user=reader,
            guild=e2e.guild,
            options={"paper": text[: 3 + i // len(readers)]},  # one more letter per round
        )
        for i, (reader, text) in enumerate(typed)
    ]
    await asyncio.gather(*(e2e.fake.wait_answered(r, within=30) for r in results))
    acks = ack_seconds(results)
    print("\n" + summary("/similar keystrokes", acks))
    assert len(acks) == BURST, "every keystroke must be answered"
    assert acks[-1] <= DEADLINE
    last = results[-len(readers) :]  # each reader's newest keystroke
    assert all(r.choices for r in last)
