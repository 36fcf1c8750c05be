"""The REST front door: record, inject faults, validate, authorise, route.

Every request is recorded (`fake.requests`) and every JSON body is validated
against Discord's OpenAPI spec plus the limits it lacks (`validation.py`); a
problem is answered like Discord answers it (400, code 50035) and kept in
`fake.violations`.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from aiohttp import web

from tests.fake_discord.attachments import (
    Upload,
    read_multipart,
    store_uploads,
    upload_problems,
)
from tests.fake_discord.constants import ErrorCode
from tests.fake_discord.responses import fault_response, json_response
from tests.fake_discord.results import InteractionResult, RecordedRequest
from tests.fake_discord.routes import ResourceRoutes
from tests.fake_discord.state import ARRIVED
from tests.fake_discord.validation import spec_validator
from tests.fake_discord.webhooks import WebhookRoutes

log = logging.getLogger(__name__)

#: A route's handler: (request, JSON body, the path's regex groups...) -> response.
RouteHandler = Callable[..., Awaitable[web.Response]]


class RestMixin(WebhookRoutes, ResourceRoutes):
    """Serves `/api/v10/...` (see `_routes` for what is implemented)."""

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        # Discord's 3-second deadline is about when the callback *arrives*;
        # the time this fake then spends validating the body against the
        # OpenAPI spec (on the test's own CPU and event loop) is not the bot's.
        request[ARRIVED] = time.monotonic()
        path = "/" + request.match_info["tail"]
        body: Any = None
        uploads: list[Upload] = []
        if request.content_type == "multipart/form-data":
            body, uploads, problems = await read_multipart(request)
            problems += spec_validator().multipart_problems(request.method, path)
            if problems:
                return self._violation(request, path, problems)
        elif raw := await request.read():
            if request.content_type != "application/json":
                return self._violation(request, path, [f"body sent as {request.content_type}"])
            body = json.loads(raw)
        record = RecordedRequest(
            request.method, path, dict(request.query), body, request.headers.get("Authorization")
        )
        record.uploads = uploads
        self.requests.append(record)
        response = await self._handle(request, path, body, record)
        record.status = response.status
        result = self._interaction_for(path)
        if result is not None:
            result.requests.append(record)
            await result._notify()
        return response

    def _interaction_for(self, path: str) -> InteractionResult | None:
        match = re.match(r"^/(?:interactions/\d+|webhooks/\d+)/([^/]+)", path)
        return self.interactions.get(match.group(1)) if match else None

    async def _handle(
        self, request: web.Request, path: str, body: Any, record: RecordedRequest
    ) -> web.Response:
        method = request.method
        for fault in self.faults:
            if fault.matches(method, path):
                fault.times -= 1
                fault.hits += 1
                if fault.stall:
                    await self._stopped.wait()
                    return json_response(
                        {"message": "503: stalled", "code": ErrorCode.GENERAL}, 503
                    )
                return fault_response(fault)
        problems = spec_validator().validate(method, path, body)
        if problems:
            return self._violation(request, path, problems)
        if not self._authorized(path, record):
            return json_response({"message": "401: Unauthorized", "code": ErrorCode.GENERAL}, 401)
        if record.uploads:
            problems = upload_problems(body, record.uploads)
            if problems:
                return self._violation(request, path, problems)
            store_uploads(body, record.uploads, self.url, self.attachment_data)
        for pattern, handler_method, handler in self._routes():
            match = re.match(pattern, path)
            if match and handler_method == method:
                return await handler(request, body, *match.groups())
        self.violations.append(f"{method} {path}: the fake Discord does not implement this route")
        return json_response({"message": "404: Not Found", "code": ErrorCode.GENERAL}, 404)

    def _authorized(self, path: str, record: RecordedRequest) -> bool:
        if path.startswith(("/interactions/", "/webhooks/")):
            if record.authorization is not None:
                self.violations.append(f"{path}: interaction routes carry no Authorization")
            return True
        return record.authorization == f"Bot {self.token}"

    def _violation(self, request: web.Request, path: str, problems: list[str]) -> web.Response:
        self.violations.extend(problems)
        log.error("invalid request %s %s: %s", request.method, path, problems)
        return json_response(
            {
                "code": ErrorCode.INVALID_FORM_BODY,
                "message": "Invalid Form Body",
                "errors": {"_errors": problems},
            },
            400,
        )

    def _routes(self) -> Iterator[tuple[str, str, RouteHandler]]:
        app = r"(\d+)"
        yield r"^/users/@me$", "GET", self._get_me
        yield r"^/oauth2/applications/@me$", "GET", self._get_application
        yield rf"^/applications/{app}/commands$", "PUT", self._put_global_commands
        yield rf"^/applications/{app}/commands$", "GET", self._get_global_commands
        yield rf"^/applications/{app}/guilds/(\d+)/commands$", "PUT", self._put_guild_commands
        yield rf"^/applications/{app}/guilds/(\d+)/commands$", "GET", self._get_guild_commands
        yield r"^/interactions/(\d+)/([^/]+)/callback$", "POST", self._callback
        yield rf"^/webhooks/{app}/([^/]+)$", "POST", self._followup
        yield rf"^/webhooks/{app}/([^/]+)/messages/(@original|\d+)$", "PATCH", self._edit_webhook
        yield rf"^/webhooks/{app}/([^/]+)/messages/(@original|\d+)$", "GET", self._get_webhook
        yield rf"^/webhooks/{app}/([^/]+)/messages/(@original|\d+)$", "DELETE", self._del_webhook
        yield r"^/channels/(\d+)$", "GET", self._get_channel
        yield r"^/channels/(\d+)/messages$", "POST", self._post_message
        yield r"^/channels/(\d+)/messages$", "GET", self._get_messages
        yield r"^/channels/(\d+)/messages/(\d+)$", "GET", self._get_message
        yield r"^/channels/(\d+)/messages/(\d+)$", "PATCH", self._edit_message
        yield r"^/channels/(\d+)/messages/(\d+)$", "DELETE", self._delete_message
        yield r"^/guilds/(\d+)$", "GET", self._get_guild
        yield r"^/guilds/(\d+)/channels$", "GET", self._get_guild_channels
