"""Start-up: a command line naming a command imports that command's module
alone (`paperbot load` pays for no HTTP client, benchmark or Discord import)
and parses exactly as the parser of every command does; the process's own
command freezes the collector's view of its imports, an in-process call not."""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys

import pytest

from paperbot.cli import COMMANDS, build_parser, command_named, main

#: Never needed to load files (URLs import the HTTP client when given).
NOT_FOR_LOAD = ("aiohttp", "discord", "apscheduler", "paperbot.bot", "paperbot.bench")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["load", "corpus/"], "load"),
        (["-v", "load"], "load"),
        (["--verbose", "list", "--venue", "ICML"], "list"),
        (["bench", "load"], "bench"),
        ([], None),
        (["--help"], None),
        (["-v"], None),
        (["lod"], None),  # unknown: the full parser says which commands exist
        (["list_papers"], None),  # a module's name is not a command's
    ],
)
def test_command_named(argv: list[str], expected: str | None) -> None:
    assert command_named(argv) == expected


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:  # argparse keeps its subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            sub: argparse.ArgumentParser = action.choices[name]
            return sub
    raise AssertionError(f"no subparsers in {parser.prog}")


@pytest.mark.parametrize("name", list(COMMANDS))
def test_one_command_parser_matches_the_full_one(name: str) -> None:
    full = _subparser(build_parser(), name).format_help()
    assert _subparser(build_parser(name), name).format_help() == full


def test_top_level_help_lists_every_command() -> None:
    text = build_parser().format_help()
    assert all(f"    {name}" in text for name in COMMANDS)


def test_load_imports_nothing_it_does_not_use() -> None:
    code = (
        "import sys\n"
        "from paperbot.cli import main\n"
        "try:\n"
        "    main(['load', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('\\n'.join(sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    modules = result.stdout.split()
    assert "paperbot.cli.load" in modules
    assert "paperbot.cli.search" not in modules
    unwanted = [m for m in modules if m.startswith(NOT_FOR_LOAD)]
    assert unwanted == []


@pytest.mark.usefixtures("cli_env")
def test_a_real_command_line_freezes_the_heap_an_in_process_call_not(
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = gc.get_freeze_count()
    assert main(["list", "--json"]) == 0
    assert gc.get_freeze_count() == before  # the tests' garbage stays collectable
    assert capsys.readouterr().out.strip() == "[]"
    code = (
        "import gc, sys\n"
        "from paperbot.cli import main\n"
        "sys.argv = ['paperbot', 'list', '--json']\n"
        "main()\n"
        "print(gc.get_freeze_count(), file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env=os.environ.copy(),
    )
    assert int(result.stderr.split()[-1]) > 1000
