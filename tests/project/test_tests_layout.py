"""Tests mirror the source: `tests/<layer>/test_<module>[_<aspect>].py`.

`<module>` is a module or package of `src/paperbot/<layer>/`, its path with
`/` written `_` (`bot/cogs/search.py` -> `test_cogs_search.py`; the layer's own
`__init__` is the layer's name, `tests/cli/test_cli_faults.py`). e2e tests are
named for the feature they drive; `project` tests the repository as a whole and
the top-level modules (`config.py`); `support` and `fake_discord` hold the
test helpers and their own tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import paperbot

SRC = Path(paperbot.__file__).parent
TESTS = Path(__file__).parents[1]
LAYERS = ("core", "storage", "services", "bot", "cli", "bench")
FOLDERS = {*LAYERS, "e2e", "project", "support", "fake_discord"}


def module_names(layer: Path) -> set[str]:
    """What a test file in tests/<layer>/ may be named for (without `test_`)."""
    names = {layer.name}
    for path in layer.rglob("*"):
        relative = path.relative_to(layer)
        if any(part.startswith("_") for part in relative.parts) or "__pycache__" in relative.parts:
            continue
        if path.suffix == ".py" or (path / "__init__.py").is_file():
            names.add(relative.with_suffix("").as_posix().replace("/", "_"))
    return names


def misnamed(test: Path, names: set[str]) -> bool:
    stem = test.stem.removeprefix("test_")
    return not any(stem == name or stem.startswith(name + "_") for name in names)


def test_every_test_file_is_in_a_known_folder() -> None:
    test_files = sorted(TESTS.rglob("test_*.py"))
    assert len(test_files) > 50  # the walk found the tests
    folders = {p.relative_to(TESTS).parts[0] for p in test_files}
    assert folders <= FOLDERS, sorted(folders - FOLDERS)
    assert [p.name for p in TESTS.glob("test_*.py")] == []


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_every_folder_is_a_package(folder: str) -> None:
    assert (TESTS / folder / "__init__.py").is_file()


@pytest.mark.parametrize("layer", LAYERS)
def test_layer_tests_are_named_for_a_module_of_their_layer(layer: str) -> None:
    names = module_names(SRC / layer)
    tests = sorted((TESTS / layer).glob("test_*.py"))
    assert tests, f"tests/{layer}/ has no tests"
    assert [t.name for t in tests if misnamed(t, names)] == []


def test_the_name_check_sees_a_stray_name() -> None:
    names = module_names(SRC / "bot")
    assert {"cogs_search", "views_paginator", "respond", "bot"} <= names
    assert misnamed(Path("test_search_cog.py"), names)
    assert not misnamed(Path("test_cogs_search_faults.py"), names)
