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


async def test_a_keyword_with_few_near_papers_gets_those_of_the_topic_it_names(
    loaded_app: App,
) -> None:
    # No page says "quantization-aware training" (nor 量化感知训练 for more than
    # one paper): Quantization's papers are near, after the keyword's own.
    for text in ["quantization-aware training", "量化感知训练"]:
        keyword = loaded_app.topics.resolve(text)
        own = await loaded_app.topics.matches(keyword)
        [demand] = await reader_demands(loaded_app.subscriptions, [text])
        quantization = await loaded_app.topics.matches(loaded_app.topics.resolve("quantization"))
        assert len(own.near_ids) < 5
        assert np.array_equal(demand.ids, own.ids)  # the matches are the keyword's own
        added = [i for i in demand.near_ids.tolist() if i not in own.near_ids.tolist()]
        expected = [i for i in quantization.ids.tolist() if i not in own.ids.tolist()]
        assert added == expected[: len(added)]
        assert len(added) >= 8
        assert max(demand.near_scores[len(own.near_ids) :]) < min(own.near_scores, default=1.0)


async def test_a_topic_and_keywords_with_enough_near_papers_or_no_named_topic_are_as_matched(
    loaded_app: App,
) -> None:
    # A vocabulary topic; a keyword naming Attention with 24 near papers of
    # its own; one with 9 that names no other topic (低秩 is a term whole).
    for text in ["scaling laws", "sparse attention", "低秩"]:
        found = await loaded_app.topics.matches(loaded_app.topics.resolve(text))
        [demand] = await reader_demands(loaded_app.subscriptions, [text])
        assert np.array_equal(demand.near_ids, found.near_ids)
