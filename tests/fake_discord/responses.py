"""Discord's HTTP answers: JSON bodies and injected faults (rate limits, 5xx)."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from tests.fake_discord.constants import ErrorCode
from tests.fake_discord.state import Fault


def json_response(data: Any, status: int = 200) -> web.Response:
    # discord.py only parses JSON when Content-Type is exactly application/json.
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


def fault_response(fault: Fault) -> web.Response:
    if fault.status == 429:
        return web.Response(
            status=429,
            body=json.dumps(
                {
                    "message": "You are being rate limited.",
                    "retry_after": fault.retry_after,
                    "global": False,
                }
            ).encode(),
            headers={
                "Content-Type": "application/json",
                # Without Via discord.py takes a 429 for a Cloudflare ban.
                "Via": "1.1 google",
                "Retry-After": str(max(1, round(fault.retry_after))),
                "X-RateLimit-Scope": "user",
            },
        )
    return json_response(
        {"message": f"{fault.status}: Internal Server Error", "code": ErrorCode.GENERAL},
        fault.status,
    )
