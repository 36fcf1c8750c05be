"""Interaction callbacks and the webhook routes for follow-ups and response edits."""

from __future__ import annotations

import time
from typing import Any

from aiohttp import web

from tests.fake_discord.constants import EPHEMERAL, LOADING, CallbackType, ErrorCode
from tests.fake_discord.messages import MessagesMixin, apply_edit
from tests.fake_discord.responses import json_response
from tests.fake_discord.results import InteractionResult
from tests.fake_discord.state import ARRIVED


class WebhookRoutes(MessagesMixin):
    """POST /interactions/{id}/{token}/callback and /webhooks/{app}/{token}/..."""

    async def _callback(
        self, request: web.Request, body: Any, interaction_id: str, token: str
    ) -> web.Response:
        result = self.interactions.get(token)
        if result is None or str(result.id) != interaction_id:
            return json_response(
                {"message": "Unknown interaction", "code": ErrorCode.UNKNOWN_INTERACTION}, 404
            )
        if result.callback is not None:
            return json_response(
                {
                    "message": "Interaction has already been acknowledged.",
                    "code": ErrorCode.ALREADY_ACKNOWLEDGED,
                },
                400,
            )
        arrived = request.get(ARRIVED, time.monotonic())
        late = arrived - result.created
        if late > self.ack_deadline:
            self.violations.append(
                f"interaction {result.payload['data'].get('name') or result.payload['data']}: "
                f"acknowledged after {late:.2f}s (Discord allows {self.ack_deadline:.0f}s)"
            )
            return json_response(
                {"message": "Unknown interaction", "code": ErrorCode.UNKNOWN_INTERACTION}, 404
            )
        result.callback = body
        result.callback_at = arrived
        kind = body["type"]
        data = body.get("data") or {}
        message: dict[str, Any] | None = None
        if kind in (
            CallbackType.CHANNEL_MESSAGE_WITH_SOURCE,
            CallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE,
        ):
            flags = (data.get("flags") or 0) & EPHEMERAL
            if kind == CallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE:
                flags |= LOADING
                data = {}
            message = self._new_message(result, data, flags=flags)
            result.original_id = int(message["id"])
        elif kind in (CallbackType.UPDATE_MESSAGE, CallbackType.DEFERRED_UPDATE_MESSAGE):
            source = result.payload.get("message")
            if source is None:
                return json_response(
                    {"message": "Invalid interaction type", "code": ErrorCode.INVALID_FORM_BODY},
                    400,
                )
            message = self.messages[int(source["id"])]
            if kind == CallbackType.UPDATE_MESSAGE:
                apply_edit(message, data)
            result.original_id = int(message["id"])
        if request.query.get("with_response") not in ("1", "true", "True"):
            return web.Response(status=204)
        return json_response(callback_reply(result, kind, message))

    def _interaction_or_404(self, token: str) -> InteractionResult | web.Response:
        result = self.interactions.get(token)
        if result is None or result.callback is None:
            # Follow-ups before the callback (or with an unknown token) fail on Discord too.
            return json_response(
                {"message": "Unknown Webhook", "code": ErrorCode.UNKNOWN_WEBHOOK}, 404
            )
        return result

    async def _followup(
        self, request: web.Request, body: Any, _app: str, token: str
    ) -> web.Response:
        result = self._interaction_or_404(token)
        if isinstance(result, web.Response):
            return result
        data = body or {}
        flags = (data.get("flags") or 0) & EPHEMERAL
        original = result.message
        if original is not None and original["flags"] & LOADING:
            # The first follow-up after a deferral replaces the "thinking…" message.
            apply_edit(original, data)
            original["flags"] &= ~LOADING
            message = original
        else:
            message = self._new_message(result, data, flags=flags)
            result.followup_ids.append(int(message["id"]))
        if request.query.get("wait") in ("1", "true", "True"):
            return json_response(message)
        return web.Response(status=204)

    def _webhook_message(self, token: str, message_id: str) -> dict[str, Any] | web.Response:
        result = self._interaction_or_404(token)
        if isinstance(result, web.Response):
            return result
        if message_id == "@original":
            message = result.message
        else:
            message = self.messages.get(int(message_id))
            if message is not None and int(message["id"]) not in (
                result.original_id,
                *result.followup_ids,
            ):
                message = None
        if message is None:
            return json_response(
                {"message": "Unknown Message", "code": ErrorCode.UNKNOWN_MESSAGE}, 404
            )
        return message

    async def _edit_webhook(
        self, _r: web.Request, body: Any, _app: str, token: str, message_id: str
    ) -> web.Response:
        message = self._webhook_message(token, message_id)
        if isinstance(message, web.Response):
            return message
        apply_edit(message, body or {})
        message["flags"] &= ~LOADING
        return json_response(message)

    async def _get_webhook(
        self, _r: web.Request, _body: Any, _app: str, token: str, message_id: str
    ) -> web.Response:
        message = self._webhook_message(token, message_id)
        return message if isinstance(message, web.Response) else json_response(message)

    async def _del_webhook(
        self, _r: web.Request, _body: Any, _app: str, token: str, message_id: str
    ) -> web.Response:
        message = self._webhook_message(token, message_id)
        if isinstance(message, web.Response):
            return message
        self.messages.pop(int(message["id"]), None)
        return web.Response(status=204)


def callback_reply(
    result: InteractionResult, kind: int, message: dict[str, Any] | None
) -> dict[str, Any]:
    """The body Discord returns for a callback sent `with_response`."""
    reply: dict[str, Any] = {
        "interaction": {
            "id": str(result.id),
            "type": result.payload["type"],
            "response_message_loading": kind == CallbackType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE,
            "response_message_ephemeral": bool(
                message is not None and message["flags"] & EPHEMERAL
            ),
        }
    }
    if message is not None:
        reply["interaction"]["response_message_id"] = message["id"]
        reply["resource"] = {"type": kind, "message": message}
    elif kind != CallbackType.DEFERRED_UPDATE_MESSAGE:
        reply["resource"] = {"type": kind}
    return reply
