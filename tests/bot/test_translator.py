"""The zh-CN/zh-TW translator built from the cogs' ZH_CN catalogs."""

from __future__ import annotations

import logging
import types
from typing import Any

import discord
import pytest
from discord.app_commands import TranslationContext, TranslationContextLocation, locale_str

from paperbot.bot.translator import CatalogTranslator

CATALOG = {"Search the papers": "搜索论文", "Daily digest": "每日摘要"}


def _translator() -> CatalogTranslator:
    translator = CatalogTranslator()
    translator.add("tests", CATALOG)
    return translator


def _context(location: TranslationContextLocation) -> TranslationContext[Any, Any]:
    return TranslationContext(location=location, data=None)


@pytest.mark.parametrize(
    ("text", "locale", "location", "expected"),
    [
        ("Search the papers", discord.Locale.chinese, "command_description", "搜索论文"),
        ("Search the papers", discord.Locale.taiwan_chinese, "command_description", "搜尋論文"),
        ("Daily digest", discord.Locale.chinese, "parameter_description", "每日摘要"),
        ("Daily digest", discord.Locale.chinese, "choice_name", "每日摘要"),
        ("Daily digest", discord.Locale.chinese, "other", "每日摘要"),
        # Names are typed by users: they stay English in every locale.
        ("Search the papers", discord.Locale.chinese, "command_name", None),
        ("Search the papers", discord.Locale.chinese, "group_name", None),
        ("Search the papers", discord.Locale.chinese, "parameter_name", None),
        ("Search the papers", discord.Locale.japanese, "command_description", None),
        ("Search the papers", discord.Locale.american_english, "command_description", None),
        ("Not in the catalog", discord.Locale.chinese, "command_description", None),
    ],
)
async def test_translate(
    text: str, locale: discord.Locale, location: str, expected: str | None
) -> None:
    context = _context(TranslationContextLocation[location])
    assert await _translator().translate(locale_str(text), locale, context) == expected


def test_add_module_collects_zh_cn_and_ignores_modules_without_one() -> None:
    translator = CatalogTranslator()
    cog = types.ModuleType("paperbot.bot.cogs.fake")
    cog.ZH_CN = {"Subscribe to a topic": "订阅主题"}  # type: ignore[attr-defined]
    assert translator.add_module(cog) == 1
    assert translator.add_module(types.ModuleType("no_catalog")) == 0
    assert translator.lookup("Subscribe to a topic", discord.Locale.chinese) == "订阅主题"
    assert len(translator) == 1


def test_a_malformed_catalog_is_refused() -> None:
    module = types.ModuleType("bad")
    module.ZH_CN = ["not", "a", "dict"]  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match=r"bad\.ZH_CN"):
        CatalogTranslator().add_module(module)


def test_a_clash_keeps_the_first_and_warns(caplog: pytest.LogCaptureFixture) -> None:
    translator = _translator()
    with caplog.at_level(logging.WARNING):
        translator.add("other", {"Daily digest": "日报"})
    assert translator.lookup("Daily digest", discord.Locale.chinese) == "每日摘要"
    assert "keeping the first" in caplog.text
