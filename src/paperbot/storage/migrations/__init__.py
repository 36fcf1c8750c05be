"""The numbered migrations of both backends (SQL files), and how SQLite's
are split into statements (`db._apply_migration` runs them one by one inside
one transaction; PostgreSQL takes a file whole)."""

from __future__ import annotations

import sqlite3


def statements(sql: str) -> list[str]:
    """Split a migration into statements (migrations hold no `;` in strings).
    A trigger's body is kept whole: its `;`s end nothing before `END;`."""
    lines = [line for line in sql.splitlines() if not line.lstrip().startswith("--")]
    found, pending = [], ""
    for part in "\n".join(lines).split(";"):
        pending += part + ";"
        if sqlite3.complete_statement(pending):
            found.append(pending.strip().removesuffix(";").strip())
            pending = ""
    return [statement for statement in [*found, pending.strip(" \n;")] if statement]
