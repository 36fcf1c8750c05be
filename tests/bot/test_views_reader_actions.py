"""The reader components' layout within Discord's 5 action rows, and their ids."""

from __future__ import annotations

import re

import discord
import pytest

from paperbot.bot.views.reader_actions import ReaderButton, ReaderSelect, reader_items, reader_view
from paperbot.core.render import EmbedData, MessageData


def message(papers: int) -> MessageData:
    ids = tuple(range(100, 100 + papers))
    return MessageData(embeds=tuple(EmbedData(title=f"Paper {i}") for i in ids), paper_ids=ids)


@pytest.mark.parametrize(
    ("papers", "rows", "buttons", "selects"),
    [
        (0, 5, 0, 0),
        (1, 5, 4, 0),
        (5, 5, 20, 0),
        (6, 5, 0, 4),
        (10, 5, 0, 4),
        (5, 4, 0, 4),
        (4, 4, 16, 0),
        (5, 3, 0, 0),
    ],
)
def test_layout(papers: int, rows: int, buttons: int, selects: int) -> None:
    items = reader_items(message(papers), rows)
    assert sum(isinstance(i, ReaderButton) for i in items) == buttons
    assert sum(isinstance(i, ReaderSelect) for i in items) == selects
    view = reader_view(message(papers), rows)
    if items:
        assert view is not None
        payload = view.to_components()
        assert len(payload) <= rows
        assert all(len(row["components"]) <= 5 for row in payload)
    else:
        assert view is None


def test_custom_ids_carry_action_and_paper() -> None:
    ids = [i.item.custom_id for i in reader_items(message(2)) if isinstance(i, ReaderButton)]
    assert ids[:4] == ["pb:r:up:100", "pb:r:down:100", "pb:r:save:100", "pb:r:more:100"]
    template = ReaderButton.__discord_ui_compiled_template__
    assert all(cid is not None and re.fullmatch(template, cid) for cid in ids)


def test_menus_list_every_paper_with_its_number() -> None:
    [first, *_] = reader_items(message(10))
    assert isinstance(first, ReaderSelect)
    select = first.item
    assert isinstance(select, discord.ui.Select)
    assert [o.value for o in select.options] == [str(i) for i in range(100, 110)]
    assert select.options[9].label.startswith("#10 ")


@pytest.mark.parametrize(("papers", "first_row"), [(4, 1), (5, 1), (3, 0)])
def test_rows_start_below_someone_elses_row(papers: int, first_row: int) -> None:
    items = reader_items(message(papers), 5 - first_row, first_row=first_row)
    rows = [i.item.row or 0 for i in items if isinstance(i, ReaderButton | ReaderSelect)]
    assert len(rows) == len(items)
    assert min(rows) == first_row
    assert max(rows) <= 4
