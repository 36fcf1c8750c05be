"""zh-CN (and zh-TW) localizations of the slash commands.

The contract with the cogs: every cog module may define a module-level
`ZH_CN: dict[str, str]` mapping the English text of its command, option and
choice descriptions (and choice names) to Chinese. Names of commands,
groups and options stay English so the commands are typed the same way
everywhere. `PaperBot` collects every loaded cog's `ZH_CN` into one
`CatalogTranslator`; Traditional Chinese (zh-TW) users get the same text
converted with OpenCC (`s2twp`: Taiwan vocabulary), so one catalog serves both.

The same catalog answers `interaction.translate("English text")` at run time
(location `other`), so replies can be localized from the same `ZH_CN`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from functools import lru_cache
from types import ModuleType
from typing import Any

import opencc
from discord import Locale, app_commands
from discord.app_commands import TranslationContextLocation, locale_str

log = logging.getLogger(__name__)

CATALOG_ATTRIBUTE = "ZH_CN"

# Names are what users type; they stay English in every locale.
_UNTRANSLATED = frozenset(
    {
        TranslationContextLocation.command_name,
        TranslationContextLocation.group_name,
        TranslationContextLocation.parameter_name,
    }
)


@lru_cache(maxsize=1)
def _to_traditional() -> Any:
    return opencc.OpenCC("s2twp")


class CatalogTranslator(app_commands.Translator):
    """English text -> Chinese, from the `ZH_CN` catalogs of the loaded cogs."""

    def __init__(self) -> None:
        self._zh_cn: dict[str, str] = {}
        self._zh_tw: dict[str, str] = {}

    def add(self, source: str, catalog: Mapping[str, str]) -> None:
        """Merge one module's catalog; a clashing translation is logged and the first kept."""
        for english, chinese in catalog.items():
            known = self._zh_cn.get(english)
            if known is not None and known != chinese:
                log.warning(
                    "%s translates %r as %r, already %r elsewhere: keeping the first",
                    source,
                    english,
                    chinese,
                    known,
                )
                continue
            self._zh_cn[english] = chinese

    def add_module(self, module: ModuleType) -> int:
        """Merge `module.ZH_CN` if the module has one; return how many entries it had."""
        catalog = getattr(module, CATALOG_ATTRIBUTE, None)
        if catalog is None:
            return 0
        if not isinstance(catalog, Mapping):
            raise TypeError(f"{module.__name__}.{CATALOG_ATTRIBUTE} must be a dict[str, str]")
        self.add(module.__name__, catalog)
        return len(catalog)

    def __len__(self) -> int:
        return len(self._zh_cn)

    def lookup(self, english: str, locale: Locale) -> str | None:
        """The translation of `english` for `locale`, or None to keep the English."""
        if locale is Locale.chinese:
            return self._zh_cn.get(english)
        if locale is Locale.taiwan_chinese:
            chinese = self._zh_cn.get(english)
            if chinese is None:
                return None
            if english not in self._zh_tw:
                self._zh_tw[english] = str(_to_traditional().convert(chinese))
            return self._zh_tw[english]
        return None

    async def translate(
        self,
        string: locale_str,
        locale: Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if context.location in _UNTRANSLATED:
            return None
        return self.lookup(string.message, locale)
