"""argparse value types shared by `paperbot ...` (cli/) and `paperbot bench ...` (bench/)."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


#: Discord ids are unsigned 64-bit, but their top bit is a timestamp bit that
#: stays 0 until 2084, and SQLite stores signed 64-bit integers: anything above
#: this cannot be a real id and would overflow the database.
SNOWFLAKE_MAX = 2**63 - 1


def snowflake(text: str) -> int:
    """argparse type: a Discord id (a whole number from 1 to `SNOWFLAKE_MAX`)."""
    value = text.strip()
    if not (value.isascii() and value.isdigit()) or not 0 < int(value) <= SNOWFLAKE_MAX:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a Discord id (a whole number from 1 to {SNOWFLAKE_MAX})"
        )
    return int(value)
