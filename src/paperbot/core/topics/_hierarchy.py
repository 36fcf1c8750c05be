"""The topic hierarchy: a topic may say it is a kind of others (`broader`).

Speculative decoding is a way to make inference efficient, so a paper whose
title says "speculative decoding" is a paper on efficient inference even
when it never says "inference": a narrower topic's strong terms count for
every topic above it (`_typed.topic_terms`), and its weak ones do not (they
need the narrower topic's own context). The relations are stated in the
vocabulary file by meaning, one `broader = [ids]` per narrower topic; this
module only reads them: every topic below one (at any depth) and the
mistakes a file can make (an unknown id, a topic above itself).

Plain (id, broader ids) pairs, so the vocabulary module can use it without
an import cycle.
"""

from __future__ import annotations

from collections.abc import Sequence

Links = Sequence[tuple[str, tuple[str, ...]]]
"""Per topic, in file order: its id and the ids it names as broader."""


def narrower_ids(links: Links) -> dict[str, tuple[str, ...]]:
    """Per topic id with any, the ids of the topics below it at any depth,
    nearest first, then in file order (a cycle, which `broader_mistake`
    refuses, stops at the topic itself)."""
    below: dict[str, list[str]] = {}
    for key, broader in links:
        for up in broader:
            below.setdefault(up, []).append(key)
    result: dict[str, tuple[str, ...]] = {}
    for top, direct in below.items():
        found: dict[str, None] = {}
        queue = list(direct)
        while queue:
            key = queue.pop(0)
            if key != top and key not in found:
                found[key] = None
                queue.extend(below.get(key, ()))
        result[top] = tuple(found)
    return result


def broader_mistake(links: Links) -> tuple[int, str] | None:
    """The first topic (its index) whose `broader` names no other topic of
    the file or leads back to itself, with what is wrong; None when every
    relation is sound."""
    ups = dict(links)
    for index, (key, broader) in enumerate(links):
        for up in broader:
            if up not in ups or up == key:
                return index, f"broader {up!r} is not the id of another topic"
        seen: set[str] = set()
        queue = list(broader)
        while queue:
            up = queue.pop()
            if up == key:
                return index, f"topic {key!r} is (through others) broader than itself"
            if up not in seen:
                seen.add(up)
                queue.extend(ups[up])
    return None
