"""The Discord client: intents, default mention policy, extensions, command sync."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import discord
from discord.ext import commands

from paperbot import __version__
from paperbot.bot import errors
from paperbot.bot.translator import CatalogTranslator
from paperbot.services.app import App

log = logging.getLogger(__name__)

_SYNC_KEY_PREFIX = "command_sync:"

# One extension per feature (python-discord/bot style).
EXTENSIONS: tuple[str, ...] = (
    "paperbot.bot.cogs.about",
    "paperbot.bot.cogs.subscriptions",
    "paperbot.bot.cogs.digest",
    "paperbot.bot.cogs.search",
    "paperbot.bot.cogs.feedback",
    "paperbot.bot.cogs.corpus_watch",
    "paperbot.bot.cogs.library",
    "paperbot.bot.cogs.mydata",
)

# The bot has no voice features: don't warn at start-up that voice libraries are missing.
discord.VoiceClient.warn_nacl = False
discord.VoiceClient.warn_dave = False


class PaperBot(commands.Bot):
    """commands.Bot carrying the application services for the cogs.

    `options` go to `commands.Bot` (tests pass a short `guild_ready_timeout`).
    """

    def __init__(self, app: App, **options: Any) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            # Slash commands only: no message content, no member list.
            intents=discord.Intents(guilds=True),
            # Nothing pings unless a send lists the users explicitly.
            allowed_mentions=discord.AllowedMentions.none(),
            help_command=None,
            **options,
        )
        self.app = app
        self.translator = CatalogTranslator()
        #: Whether the last `sync_commands` call sent the commands to Discord.
        self.synced: bool | None = None
        errors.install(self.tree)

    async def setup_hook(self) -> None:
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        for module in (*self.extensions.values(), errors):
            self.translator.add_module(module)
        await self.tree.set_translator(self.translator)
        await self.sync_commands()

    async def sync_commands(self) -> bool:
        """Sync to `bot.sync_guild` (or globally) only if the commands changed since last time.

        The hash covers the exact payload `tree.sync` sends (localizations
        included) and the application id, and is kept in the app state per
        target, so restarts don't spend Discord's command rate limit.
        """
        guild_id = self.app.settings.bot.sync_guild
        guild = discord.Object(id=guild_id) if guild_id else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        target = f"guild {guild_id}" if guild_id else "global"
        digest = await self._commands_digest(guild)
        key = f"{_SYNC_KEY_PREFIX}{guild_id or 'global'}"
        if await self.app.state.get(key) == digest:
            log.info("application commands unchanged since the last sync (%s): not syncing", target)
            self.synced = False
            return False
        try:
            synced = await self.tree.sync(guild=guild)
        except discord.Forbidden:
            log.error(
                "Discord refused the command sync (%s): invite the bot with the "
                "applications.commands scope (README: Running the bot for real)",
                target,
            )
            self.synced = False
            return False
        except discord.HTTPException as exc:
            # Commands Discord already has keep working; the next start retries.
            log.error("syncing application commands (%s) failed: %s", target, exc)
            self.synced = False
            return False
        await self.app.state.set(key, digest)
        log.info("synced %d application commands (%s)", len(synced), target)
        self.synced = True
        if guild is None:
            await self._clear_development_guilds()
        return True

    async def _clear_development_guilds(self) -> None:
        """Remove commands an earlier guild sync left behind.

        A guild that got its own copy while developing would otherwise show
        every command twice once the global commands arrive.
        """
        for key in await self.app.state.keys(_SYNC_KEY_PREFIX):
            suffix = key.removeprefix(_SYNC_KEY_PREFIX)
            if not suffix.isdigit():
                continue
            guild = discord.Object(id=int(suffix))
            self.tree.clear_commands(guild=guild)
            try:
                await self.tree.sync(guild=guild)
            except discord.HTTPException as exc:
                log.warning("could not clear the commands of guild %s: %s", suffix, exc)
                continue
            await self.app.state.delete(key)
            log.info("cleared the development commands of guild %s", suffix)

    async def _commands_digest(self, guild: discord.abc.Snowflake | None) -> str:
        commands_ = self.tree.get_commands(guild=guild)
        translator = self.tree.translator
        if translator is not None:
            payload = [await c.get_translated_payload(self.tree, translator) for c in commands_]
        else:
            payload = [c.to_dict(self.tree) for c in commands_]
        payload.sort(key=lambda c: (c.get("type", 1), c["name"]))
        canonical = json.dumps(
            {"application": self.application_id, "commands": payload},
            sort_keys=True,
            ensure_ascii=False,
            default=str,
        )
        return hashlib.sha256(canonical.encode()).hexdigest()

    async def on_ready(self) -> None:
        user = self.user
        log.info(
            "paperbot %s ready: logged in as %s (id %s) in %d servers, %d commands, sync %s",
            __version__,
            user,
            user.id if user else None,
            len(self.guilds),
            len(self.tree.get_commands()),
            f"guild {self.app.settings.bot.sync_guild}"
            if self.app.settings.bot.sync_guild
            else "global",
        )


class ShardedPaperBot(PaperBot, commands.AutoShardedBot):
    """One process of several: runs the shards in `bot.shards` of `bot.shard_count`
    (the digest scheduler then owns only those shards' servers)."""

    def __init__(self, app: App, **options: Any) -> None:
        shards = app.settings.bot.shard_set
        super().__init__(app, shard_ids=list(shards.ids), shard_count=shards.count, **options)


def bot_for(app: App, **options: Any) -> PaperBot:
    """The bot the settings ask for: sharded when `bot.shards` is set."""
    if app.settings.bot.shards is not None:
        return ShardedPaperBot(app, **options)
    return PaperBot(app, **options)
