"""The search package's public surface: one `__all__`, no private imports from outside."""

from __future__ import annotations

import ast
from pathlib import Path

import paperbot
from paperbot.core import search

SRC = Path(paperbot.__file__).parent
PACKAGE = SRC / "core" / "search"
TESTS = Path(__file__).parents[1]


def test_every_public_name_is_exported_once() -> None:
    assert len(search.__all__) == len(set(search.__all__))
    for name in search.__all__:
        assert getattr(search, name) is not None, name
        assert not name.startswith("_"), name


def _private_search_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
            if node.module == "paperbot.core.search":
                modules += [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        else:
            continue
        found += [m for m in modules if m.startswith("paperbot.core.search._")]
    return found


def test_nothing_outside_the_package_imports_a_private_module() -> None:
    outside = [
        p for root in (SRC, TESTS) for p in sorted(root.rglob("*.py")) if PACKAGE not in p.parents
    ]
    assert len(outside) > 50  # the walk found the code
    offenders = {str(p): found for p in outside if (found := _private_search_imports(p))}
    assert offenders == {}


def test_the_check_sees_a_private_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from paperbot.core.search._rank import rank\nfrom paperbot.core.search import _grams\n"
    )
    assert _private_search_imports(bad) == [
        "paperbot.core.search._rank",
        "paperbot.core.search._grams",
    ]
