"""Every `paperbot` command and benchmark prints its help (argparse formats
help strings with %, so a stray % in one breaks `--help` for the command)."""

from __future__ import annotations

import argparse

import pytest

from paperbot.cli import build_parser
from paperbot.cli.bench import BENCHMARKS


def _parsers(
    parser: argparse.ArgumentParser, path: str = "paperbot"
) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(path, parser)]
    for action in parser._actions:  # argparse keeps its subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _parsers(sub, f"{path} {name}")
    return found


PARSERS = _parsers(build_parser())


@pytest.mark.parametrize(("command", "parser"), PARSERS, ids=[c for c, _ in PARSERS])
def test_help_formats(command: str, parser: argparse.ArgumentParser) -> None:
    assert command.split()[-1] in parser.format_help() or command == "paperbot"


def test_every_benchmark_is_reachable() -> None:
    assert {c.split()[-1] for c, _ in PARSERS if c.startswith("paperbot bench ")} == set(BENCHMARKS)
