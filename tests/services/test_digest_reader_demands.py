"""`reader_demands`: one reader's audience, shared by `digest preview --topics`
and `bench quality`."""

from __future__ import annotations

import numpy as np
import pytest

from paperbot.core.digest import TopicDemand
from paperbot.core.topics import TopicInputError
from paperbot.services.app import App
from paperbot.services.digest import READER, reader_demands, scaled


async def test_one_demand_per_text_with_the_topic_matches_scaled(loaded_app: App) -> None:
    demands = await reader_demands(loaded_app.subscriptions, ["scaling laws", " ", "低秩"])
    assert [d.topic for d in demands] == [
        "Scaling laws · 缩放定律",
        "“低秩” (keyword · 关键词)",
    ]
    found = await loaded_app.topics.matches(loaded_app.topics.resolve("scaling laws"))
    expected = scaled(TopicDemand("x", (READER,), found.ids, found.scores))
    assert demands[0].subscribers == (READER,)
    assert np.array_equal(demands[0].ids, found.ids)
    assert np.allclose(demands[0].scores, expected.scores)
    assert all(0 < s <= 1 for d in demands for s in d.scores)


@pytest.mark.parametrize("texts", [[], ["", "  "]])
async def test_no_topic_is_an_input_error(loaded_app: App, texts: list[str]) -> None:
    with pytest.raises(TopicInputError, match="at least one topic"):
        await reader_demands(loaded_app.subscriptions, texts)
