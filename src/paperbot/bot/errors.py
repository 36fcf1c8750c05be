"""The one error handler for application commands (and views, via `handle_error`).

Expected problems (cooldowns, missing permissions, DMs, bad option values,
failed checks) get their own short, clear, ephemeral message. Anything else
gets a short ephemeral apology carrying an error id, while the log gets the
traceback with the same id. Never a traceback in Discord. Messages follow
the user's Discord language (English, or Chinese through `ZH_CN`).

`UserError(message)` is for the feature cogs: raise it (from a command, a
check or a transformer) when the user asked for something that can't be
done; its message is shown as-is, ephemerally, and nothing is logged as an
error.
"""

from __future__ import annotations

import logging
import math
import secrets
from typing import Any

import discord
from discord import app_commands

from paperbot.bot.respond import localize

log = logging.getLogger(__name__)


class UserError(app_commands.AppCommandError):
    """An expected problem whose message (already localized if needed) the user sees."""


APOLOGY = "Sorry, something went wrong on my side (error id `{error_id}`). It has been logged."
COOLDOWN = "You're going a bit fast: try again in {seconds} s."
NO_DM = "This command only works in a server, not in direct messages."
MISSING_PERMISSIONS = "You need the {permissions} permission to use this command."
BOT_MISSING_PERMISSIONS = (
    "I need the {permissions} permission in this channel; please ask a server admin to grant it."
)
BAD_VALUE = "{value} is not a valid {kind}."
BAD_TEXT = "{value} is not a valid value for this option."
CHECK_FAILED = "You can't use this command here."
OUTDATED = "This command was just updated; please try again in a minute."

ZH_CN: dict[str, str] = {
    APOLOGY: "抱歉，我这边出了点问题（错误编号 `{error_id}`），已记录。",
    COOLDOWN: "操作有点快了：请 {seconds} 秒后再试。",
    NO_DM: "此命令只能在服务器中使用，不能在私信中使用。",
    MISSING_PERMISSIONS: "你需要「{permissions}」权限才能使用此命令。",
    BOT_MISSING_PERMISSIONS: "我在此频道缺少「{permissions}」权限，请让服务器管理员授予。",
    BAD_VALUE: "{value} 不是有效的{kind}。",
    BAD_TEXT: "{value} 不是此选项的有效值。",
    CHECK_FAILED: "你不能在这里使用此命令。",
    OUTDATED: "此命令刚刚更新，请一分钟后再试。",
}

_PERMISSION_NAMES: dict[str, tuple[str, str]] = {
    "administrator": ("Administrator", "管理员"),
    "manage_guild": ("Manage Server", "管理服务器"),
    "manage_channels": ("Manage Channels", "管理频道"),
    "manage_messages": ("Manage Messages", "管理消息"),
    "view_channel": ("View Channel", "查看频道"),
    "send_messages": ("Send Messages", "发送消息"),
    "embed_links": ("Embed Links", "嵌入链接"),
    "read_message_history": ("Read Message History", "阅读消息历史"),
    "use_application_commands": ("Use Application Commands", "使用应用命令"),
}

_KIND_NAMES: dict[discord.AppCommandOptionType, tuple[str, str]] = {
    discord.AppCommandOptionType.integer: ("whole number", "整数"),
    discord.AppCommandOptionType.number: ("number", "数字"),
    discord.AppCommandOptionType.boolean: ("yes/no value", "是/否值"),
    discord.AppCommandOptionType.user: ("user", "用户"),
    discord.AppCommandOptionType.channel: ("channel", "频道"),
    discord.AppCommandOptionType.role: ("role", "身份组"),
}


def _is_chinese(interaction: discord.Interaction[Any]) -> bool:
    return interaction.locale in (discord.Locale.chinese, discord.Locale.taiwan_chinese)


def permission_names(interaction: discord.Interaction[Any], names: list[str]) -> str:
    index = 1 if _is_chinese(interaction) else 0
    readable = [
        _PERMISSION_NAMES.get(name, (name.replace("_", " ").title(),) * 2)[index] for name in names
    ]
    return "、".join(readable) if index else ", ".join(readable)


def user_message(interaction: discord.Interaction[Any], error: Exception) -> str | None:
    """The message for an expected problem, or None when it is a bug."""
    if isinstance(error, UserError):
        return str(error)
    if isinstance(error, app_commands.CommandOnCooldown):
        return localize(interaction, COOLDOWN, seconds=max(1, math.ceil(error.retry_after)))
    if isinstance(error, app_commands.NoPrivateMessage):
        return localize(interaction, NO_DM)
    if isinstance(error, app_commands.MissingPermissions):
        names = permission_names(interaction, error.missing_permissions)
        return localize(interaction, MISSING_PERMISSIONS, permissions=names)
    if isinstance(error, app_commands.BotMissingPermissions):
        names = permission_names(interaction, error.missing_permissions)
        return localize(interaction, BOT_MISSING_PERMISSIONS, permissions=names)
    if isinstance(error, app_commands.TransformerError):
        value = f"“{discord.utils.escape_markdown(str(error.value))[:100]}”"
        kind = _KIND_NAMES.get(error.type)
        if kind is None:
            return localize(interaction, BAD_TEXT, value=value)
        return localize(interaction, BAD_VALUE, value=value, kind=kind[_is_chinese(interaction)])
    if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
        return localize(interaction, OUTDATED)
    if isinstance(error, app_commands.CheckFailure):
        return localize(interaction, CHECK_FAILED)
    return None


async def handle_error(interaction: discord.Interaction[Any], error: Exception) -> str | None:
    """Tell the user (ephemerally) and log; returns the error id for unexpected errors."""
    message = user_message(interaction, error)
    error_id: str | None = None
    if message is None:
        error_id = secrets.token_hex(4)
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        command = interaction.command.qualified_name if interaction.command else None
        log.error(
            "error %s in %s (guild %s, channel %s, user %s)",
            error_id,
            f"/{command}" if command else f"interaction type {interaction.type.name}",
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id if interaction.user else None,
            exc_info=(type(original), original, original.__traceback__),
        )
        message = localize(interaction, APOLOGY, error_id=error_id)
    else:
        log.info("user problem in interaction %s: %s", interaction.id, type(error).__name__)
    await send_ephemeral(interaction, message)
    return error_id


async def send_ephemeral(interaction: discord.Interaction[Any], text: str) -> None:
    """Reply privately whether or not the interaction was already answered or deferred."""
    mentions = discord.AllowedMentions.none()
    try:
        if not interaction.response.is_done():
            await interaction.response.send_message(text, ephemeral=True, allowed_mentions=mentions)
        elif interaction.response.type is discord.InteractionResponseType.deferred_channel_message:
            # The "thinking…" placeholder would otherwise spin until it times out.
            await interaction.edit_original_response(
                content=text, embeds=[], view=None, allowed_mentions=mentions
            )
        else:
            await interaction.followup.send(text, ephemeral=True, allowed_mentions=mentions)
    except discord.HTTPException as exc:
        # The interaction may have expired (15 min) or been deleted: nothing more to do.
        log.warning("could not send an error message for interaction %s: %s", interaction.id, exc)


class HandledView(discord.ui.View):
    """A view whose button and select errors go to `handle_error`, like
    command errors (the paginator, the confirmation)."""

    async def on_error(
        self,
        interaction: discord.Interaction[Any],
        error: Exception,
        _item: discord.ui.Item[Any],
        /,
    ) -> None:
        await handle_error(interaction, error)


async def on_app_command_error(
    interaction: discord.Interaction[Any], error: app_commands.AppCommandError
) -> None:
    await handle_error(interaction, error)


def install(tree: app_commands.CommandTree[Any]) -> None:
    """Make `on_app_command_error` the tree's handler (the only one)."""
    tree.error(on_app_command_error)
