"""`/search` end to end: the real client against the fake Discord, every
request body validated against Discord's spec (paging is covered in
test_permissions_matrix.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from tests.fake_discord import FakeUser, button
from tests.support.e2e import E2E


async def test_results_are_public_embeds_with_links_and_bold(e2e: E2E) -> None:
    result = await e2e.slash("search", query="speculativ decodng")
    assert result.callback_type in (4, 5)
    assert not result.ephemeral
    embeds = result.embeds
    assert 1 <= len(embeds) <= 5
    assert "Speculative Decoding" in embeds[0]["title"]
    assert embeds[0]["url"].startswith("https://arxiv.org/search/?query=")
    assert "NeurIPS 2023" in embeds[0]["footer"]["text"]
    # Terms matched in a summary are bold there.
    mixed = await e2e.slash("search", query="RoPE 单头")
    assert "**RoPE**" in mixed.embeds[0]["description"]
    assert "**单头**" in mixed.embeds[0]["description"]
    sends = [r for r in result.requests if r.method in ("POST", "PATCH") and r.body]
    assert sends
    for request in sends:
        body = request.body.get("data", request.body)
        if "content" in body or "embeds" in body:
            assert body["allowed_mentions"]["parse"] == [], request


async def test_chinese_query_and_chinese_reader(e2e: E2E) -> None:
    result = await e2e.slash("search", query="權重衰減和批大小", locale="zh-CN")
    assert "Power Lines" in result.embeds[0]["title"]
    assert "共找到" in result.content
    if result.custom_ids:  # several pages
        assert button(result.message or {}, "下一页")["disabled"] is False


async def test_venue_and_year_options_filter(e2e: E2E) -> None:
    result = await e2e.slash("search", query="qlora", venue="NeurIPS", year=2023)
    assert result.embeds[0]["title"].startswith("QLoRA")
    assert all("NeurIPS 2023" in e["footer"]["text"] for e in result.embeds)


async def test_venue_autocomplete_offers_loaded_venues(e2e: E2E) -> None:
    choices = await e2e.autocomplete("search", focused="venue", query="x", venue="ic")
    assert {c["value"] for c in choices} == {"ICLR", "ICML"}


async def test_too_long_query_is_refused_privately(e2e: E2E) -> None:
    result = await e2e.slash("search", query="scaling " * 50)
    assert result.ephemeral
    assert "too long" in result.text()


async def test_nothing_found_is_private_and_helpful(e2e: E2E) -> None:
    result = await e2e.slash("search", query="xqzvbk")
    assert result.ephemeral
    assert "No papers found" in result.text()


async def test_query_cannot_ping(e2e: E2E) -> None:
    result = await e2e.slash("search", query="@everyone diffusion <@&1>")
    assert "@everyone" not in result.content
    assert "<@&1>" not in result.content
    assert "diffusion" in result.content


async def test_cooldown_per_user(e2e: E2E) -> None:
    user = FakeUser(name="eager")
    for _ in range(e2e.bot.app.settings.search.cooldown_uses):
        result = await e2e.slash("search", query="diffusion", user=user)
        assert not result.ephemeral
    refused = await e2e.slash("search", query="diffusion", user=user)
    assert refused.ephemeral
    assert "going a bit fast" in refused.text()
    other = await e2e.slash("search", query="diffusion", user=FakeUser(name="patient"))
    assert not other.ephemeral


async def test_results_follow_a_corpus_load(e2e: E2E, tmp_path: Path) -> None:
    assert "No papers found" in (await e2e.slash("search", query="珊瑚礁")).text()
    page = tmp_path / "extra.txt"
    page.write_text(
        "📚 预训练¶\n\n🧠 ICML2026 · 1 篇论文解读\n\n"
        "Coral Reef Transformers: 研究珊瑚礁图像的 Transformer。\n",
        encoding="utf-8",
    )
    await e2e.bot.app.corpus.load([page], default_area="预训练", now=datetime.now(UTC))
    e2e.bot.app.search.forget_version()
    result = await e2e.slash("search", query="珊瑚礁")
    assert result.embeds
    assert result.embeds[0]["title"] == "Coral Reef Transformers"
