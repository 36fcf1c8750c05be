"""PostgreSQL for the tests: the URL `.ci/run` exports, and a fresh schema per test.

Without `PAPERBOT_TEST_POSTGRES` every PostgreSQL case is skipped with the
reason, so the suite passes on SQLite alone.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

ENV_TEST_POSTGRES = "PAPERBOT_TEST_POSTGRES"
SKIP_REASON = (
    f"no PostgreSQL: set {ENV_TEST_POSTGRES}=postgresql://... "
    "(.ci/run starts a throwaway cluster and sets it)"
)


def postgres_url() -> str:
    """The test cluster's URL, or skip the test saying why."""
    url = os.environ.get(ENV_TEST_POSTGRES, "").strip()
    if not url:
        pytest.skip(SKIP_REASON)
    return url


def with_schema(url: str, schema: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}search_path={schema}"


@asynccontextmanager
async def fresh_schema(url: str) -> AsyncIterator[str]:
    """A URL whose tables live in a new, empty schema, dropped afterwards."""
    import asyncpg

    schema = f"test_{uuid.uuid4().hex[:12]}"
    try:
        yield with_schema(url, schema)
    finally:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        finally:
            await conn.close()
