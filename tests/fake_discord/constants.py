"""Discord's wire numbers, named: interaction, callback, option, component, gateway types.

The values are Discord's (developer docs, "Interactions" and "Gateway"); an
`IntEnum` member is an `int`, so payloads built from them serialise unchanged.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

API_PREFIX: Final = "/api/v10"
#: Discord drops an interaction not acknowledged within this many seconds.
ACK_DEADLINE: Final = 3.0

# Message flags stay plain ints: `~LOADING` must clear one bit of any flags value.
EPHEMERAL: Final = 1 << 6
#: The "thinking…" message a deferred interaction shows until its first follow-up.
LOADING: Final = 1 << 7


class InteractionType(IntEnum):
    PING = 1
    APPLICATION_COMMAND = 2
    MESSAGE_COMPONENT = 3
    APPLICATION_COMMAND_AUTOCOMPLETE = 4
    MODAL_SUBMIT = 5


class CallbackType(IntEnum):
    """Interaction callback (response) types."""

    PONG = 1
    CHANNEL_MESSAGE_WITH_SOURCE = 4
    DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE = 5
    DEFERRED_UPDATE_MESSAGE = 6
    UPDATE_MESSAGE = 7
    APPLICATION_COMMAND_AUTOCOMPLETE_RESULT = 8
    MODAL = 9


class CommandType(IntEnum):
    CHAT_INPUT = 1
    USER = 2
    MESSAGE = 3


class OptionType(IntEnum):
    SUB_COMMAND = 1
    SUB_COMMAND_GROUP = 2
    STRING = 3
    INTEGER = 4
    BOOLEAN = 5
    USER = 6
    CHANNEL = 7
    ROLE = 8
    MENTIONABLE = 9
    NUMBER = 10
    ATTACHMENT = 11


#: Option types that nest options instead of carrying a value.
SUBCOMMAND_TYPES: Final = (OptionType.SUB_COMMAND, OptionType.SUB_COMMAND_GROUP)


class ComponentType(IntEnum):
    ACTION_ROW = 1
    BUTTON = 2
    STRING_SELECT = 3
    TEXT_INPUT = 4


class ChannelType(IntEnum):
    GUILD_TEXT = 0
    DM = 1


class MessageType(IntEnum):
    DEFAULT = 0
    CHAT_INPUT_COMMAND = 20


class InteractionContext(IntEnum):
    GUILD = 0
    BOT_DM = 1


class GatewayOp(IntEnum):
    DISPATCH = 0
    HEARTBEAT = 1
    IDENTIFY = 2
    RESUME = 6
    HELLO = 10
    HEARTBEAT_ACK = 11


class GatewayClose(IntEnum):
    AUTHENTICATION_FAILED = 4004


class ErrorCode(IntEnum):
    """JSON error codes in Discord's REST error bodies."""

    GENERAL = 0
    UNKNOWN_CHANNEL = 10003
    UNKNOWN_GUILD = 10004
    UNKNOWN_MESSAGE = 10008
    UNKNOWN_WEBHOOK = 10015
    UNKNOWN_INTERACTION = 10062
    ALREADY_ACKNOWLEDGED = 40060
    MISSING_PERMISSIONS = 50013
    INVALID_FORM_BODY = 50035
