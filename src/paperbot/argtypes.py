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
