"""`/about` end to end."""

from __future__ import annotations

from tests.support.e2e import E2E


async def test_about_in_a_guild(e2e: E2E) -> None:
    result = await e2e.slash("about")
    assert result.callback_type == 4
    assert result.ephemeral
    [embed] = result.embeds
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert int(fields["Papers"]) > 100
    assert "NeurIPS 2025" in fields["Venues"]
    assert int(fields["Topics"]) == len(e2e.bot.app.topics.vocabulary)
    assert "/digest setup" in fields["This server's digest"]
    assert embed["footer"]["text"].startswith("paperbot ")


async def test_about_in_chinese(e2e: E2E) -> None:
    result = await e2e.slash("about", locale="zh-CN")
    [embed] = result.embeds
    names = [f["name"] for f in embed["fields"]]
    assert names[:2] == ["论文", "主题"]
    assert "双语" in embed["description"]


async def test_about_in_a_dm(e2e: E2E) -> None:
    result = await e2e.dm("about")
    assert result.callback_type == 4
    assert "in a server" in result.text()


async def test_about_shows_the_digest_schedule_once_set_up(e2e: E2E) -> None:
    setup = await e2e.slash(
        "digest setup",
        user=e2e.admin,
        options={"channel": e2e.channel},
        time="07:45",
        timezone="Asia/Shanghai",
        count=3,
    )
    assert setup.ephemeral
    [embed] = (await e2e.slash("about")).embeds
    digest = next(f["value"] for f in embed["fields"] if f["name"] == "This server's digest")
    assert f"3 papers daily at 07:45 (Asia/Shanghai) in <#{e2e.channel.id}>" in digest
    assert "<t:" in digest

    await e2e.slash("digest off", user=e2e.admin)
    [embed] = (await e2e.slash("about")).embeds
    assert "Turned off." in embed["fields"][-1]["value"]
