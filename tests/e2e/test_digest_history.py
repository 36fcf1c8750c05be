"""/digest history end to end against the fake Discord: past posts newest
first, paged, with titles linked and a jump link to each original message;
anyone may read it, privately."""

from __future__ import annotations

import re

from tests.support.e2e import E2E


async def post_digests(e2e: E2E, times: int) -> list[str]:
    """`/digest now` `times` times; the message ids, oldest first."""
    await e2e.slash(
        "digest setup", user=e2e.admin, options={"channel": e2e.channel}, time="06:00", count=2
    )
    for _ in range(times):
        posted = await e2e.slash("digest now", user=e2e.admin)
        assert "Posted 2 papers" in posted.text()
    return [m["id"] for m in e2e.fake.channel_history(e2e.channel)]


async def test_history_lists_posts_newest_first_with_jump_links(e2e: E2E) -> None:
    ids = await post_digests(e2e, 2)
    answer = await e2e.slash("digest history")  # a plain member
    assert answer.ephemeral
    embeds = answer.embeds
    assert len(embeds) == 2
    jump = [re.search(r"/channels/(\d+)/(\d+)/(\d+)\)", e["description"]) for e in embeds]
    assert [m.group(3) for m in jump if m] == list(reversed(ids))
    assert all(m is not None and m.group(1) == str(e2e.guild.id) for m in jump)
    history = e2e.fake.channel_history(e2e.channel)
    newest_titles = [e["title"] for e in history[-1]["embeds"]]
    for title in newest_titles:
        assert title[:40] in embeds[0]["description"]
    assert "https://arxiv.org/search/" in embeds[0]["description"]
    assert embeds[0]["title"].startswith("Extra digest — ")


async def test_history_pages_and_date(e2e: E2E) -> None:
    await post_digests(e2e, 7)
    answer = await e2e.slash("digest history")
    assert len(answer.embeds) == 5
    assert any("Next" in (b or "") for b in button_labels(answer.message))
    page2 = await e2e.click(answer.message, answer.custom_ids[-1])
    await page2.settle()
    assert page2.message is not None
    assert len(page2.message["embeds"]) == 2
    before = await e2e.slash("digest history", date="2000-01-01")
    assert before.ephemeral
    assert "on or before 2000-01-01" in before.text()
    bad = await e2e.slash("digest history", date="yesterday")
    assert bad.ephemeral
    assert "YYYY-MM-DD" in bad.text()


async def test_history_empty(e2e: E2E) -> None:
    answer = await e2e.slash("digest history", locale="zh-CN")
    assert answer.ephemeral
    assert "还没有推送过摘要" in answer.text()


def button_labels(message: dict[str, object] | None) -> list[str | None]:
    assert message is not None
    rows = message.get("components") or []
    assert isinstance(rows, list)
    return [c.get("label") for row in rows for c in row.get("components", [])]
