"""`paperbot init [--dir D] [--force]`: write a config file to edit."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from paperbot.cli.common import EXIT_OK, fail
from paperbot.config import (
    BUNDLED_TOPICS,
    CONFIG_FILE_NAME,
    DEFAULT_CONFIG,
    ENV_CONFIG,
    EXAMPLE_CONFIG,
    Settings,
    user_config_file,
)


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "init", help="write a commented paperbot.toml to edit (default: the user config folder)"
    )
    parser.add_argument(
        "--dir",
        type=Path,
        default=None,
        help=f"folder to write {CONFIG_FILE_NAME} into (default: {user_config_file().parent})",
    )
    parser.add_argument("--force", action="store_true", help="overwrite an existing file")
    # The file being written may be the broken one: don't read it first.
    parser.set_defaults(handler=init, needs_settings=False)


def init(args: argparse.Namespace, settings: Settings) -> int:
    target = (args.dir / CONFIG_FILE_NAME) if args.dir else user_config_file()
    if target.exists() and not args.force:
        return fail(f"{target} already exists; edit it, or add --force to replace it")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(EXAMPLE_CONFIG.read_text(encoding="utf-8"), encoding="utf-8")
    except OSError as exc:
        return fail(f"cannot write {target}: {exc.strerror}")
    print(f"wrote {target}")
    print(_how_it_is_found(target))
    print(f"database: {settings.database.path}")
    print(f"bundled vocabulary (copy it to edit topics): {BUNDLED_TOPICS}")
    return EXIT_OK


def _how_it_is_found(target: Path) -> str:
    resolved = target.resolve()
    if resolved == user_config_file().resolve():
        found = "paperbot reads it when the working directory has no config/paperbot.toml"
    elif resolved == DEFAULT_CONFIG.resolve():
        found = "paperbot reads it when run from this folder"
    else:
        found = f"to use it, set {ENV_CONFIG}={resolved}"
    return f"{found} ({ENV_CONFIG} overrides)"
