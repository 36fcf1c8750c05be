"""Highlights of later result pages are worked out when first read, and
equal the ones worked out at once (`rank(eager=...)`, `Ranking.matched`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

import pytest

from paperbot.config import SearchSettings
from paperbot.core.lazy import LazySequence
from paperbot.core.models import Paper
from paperbot.core.search import QueryTables, parse_query, rank
from paperbot.core.search_render import ResultItem, ResultPages
from paperbot.services.search import SearchService
from paperbot.storage.db import Database
from tests.support.search import real_index, real_papers

VENUES = ("ICLR", "ICML", "NeurIPS")
EXPANSIONS = {
    "mixture of experts": ("混合专家", "moe"),
    "混合专家": ("mixture of experts", "moe"),
    "moe": ("mixture of experts", "混合专家"),
}
QUERIES = [
    "speculative decoding",
    "language model",
    "data selection for language models",
    "speculativ decodng",
    "refined web",
    "QLoRA",
    "DPO",
    "数据去重",
    "权重衰减和批大小",
    "RoPE 单头",
    "混合专家",
    "mixture of experts",
    "NeurIPS 2023 QLoRA",
    "diffusion",
]
PAGE = 5


@pytest.mark.parametrize("query", QUERIES)
def test_lazy_matches_equal_eager_ones(query: str) -> None:
    parsed = parse_query(query, venues=VENUES, expansions=EXPANSIONS)
    eager = rank(real_index(), parsed, limit=50)
    lazy = rank(real_index(), parsed, limit=50, eager=PAGE)
    assert lazy.ids == eager.ids
    assert lazy.scores == eager.scores
    assert isinstance(lazy.matched, LazySequence)
    assert lazy.matched.computed() == min(PAGE, len(lazy.ids))
    # Read in reverse, as a paginator jumping to the last page would.
    later = [lazy.matched[i] for i in reversed(range(len(lazy.ids)))]
    assert later[::-1] == list(eager.matched)
    assert lazy.matched == eager.matched
    assert tuple(lazy.matched) == tuple(eager.matched)
    assert lazy.matched.computed() == len(lazy.ids)


@pytest.mark.parametrize(
    ("highlight", "eager", "computed", "highlighted"),
    [
        (None, None, 50, 50),
        (None, PAGE, PAGE, 50),
        (None, 0, 0, 50),
        (50, PAGE, PAGE, 50),
        (10, PAGE, PAGE, 10),
        (10, None, 10, 10),
        (3, PAGE, 3, 3),
        (0, None, 0, 0),
    ],
)
def test_only_the_eager_results_are_worked_out_in_rank(
    highlight: int | None, eager: int | None, computed: int, highlighted: int
) -> None:
    parsed = parse_query("language model", venues=VENUES)
    ranking = rank(real_index(), parsed, limit=50, highlight=highlight, eager=eager)
    assert len(ranking.ids) == 50
    matched = ranking.matched
    assert isinstance(matched, LazySequence)
    assert matched.computed() == computed
    assert len(matched) == 50
    assert all(matched[i] for i in range(highlighted))  # every result matched something
    assert matched.computed() == max(computed, highlighted)
    assert all(m == () for m in matched[highlighted:])  # nothing matched: not highlighted


def test_one_read_works_out_one_result() -> None:
    ranking = rank(real_index(), parse_query("language model"), limit=50, eager=PAGE)
    matched = ranking.matched
    assert isinstance(matched, LazySequence)
    first = matched[12]
    assert matched.computed() == PAGE + 1
    assert matched[12] is first  # kept, not worked out again
    assert matched[-len(matched) + 12] is first
    assert matched[10:13][2] is first
    with pytest.raises(IndexError):
        matched[len(matched)]
    assert hash(matched) == hash(tuple(matched))


class Recorded(Sequence[ResultItem]):
    """Result items that note which ones were read."""

    def __init__(self, items: Sequence[ResultItem]) -> None:
        self.items = list(items)
        self.read: set[int] = set()

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, index: int) -> ResultItem: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[ResultItem]: ...

    def __getitem__(self, index: int | slice) -> ResultItem | Sequence[ResultItem]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self.items)))]
        self.read.add(index)
        return self.items[index]


def test_pages_read_only_their_own_items() -> None:
    parsed = parse_query("数据 model")
    papers: list[Paper] = list(real_papers()[:23])
    items = [ResultItem(p, ("数据", "model")) for p in papers]
    recorded = Recorded(items)
    lazy = ResultPages(parsed, recorded, total=40, page_size=PAGE)
    eager = ResultPages(parsed, items, total=40, page_size=PAGE)
    assert len(lazy) == len(eager) == 5
    assert lazy[0] == eager[0]
    assert recorded.read == set(range(5))
    assert lazy[4] == eager[4]
    assert recorded.read == {*range(5), *range(20, 23)}
    assert list(lazy) == list(eager)


def service(db: Database) -> SearchService:
    return SearchService(db, SearchSettings(), QueryTables(EXPANSIONS))


@pytest.mark.parametrize("query", ["language model", "混合专家", "speculativ decodng"])
async def test_service_hits_highlight_lazily(loaded_db: Database, query: str) -> None:
    svc = service(loaded_db)
    eager = await svc.search(query, limit=50)
    lazy = await svc.search(query, limit=50, highlight=PAGE)
    assert [(h.paper, h.score) for h in lazy.hits] == [(h.paper, h.score) for h in eager.hits]
    assert lazy.hits
    matches = lazy.hits[0].ranked_matches
    assert isinstance(matches, LazySequence)
    assert matches.computed() == min(PAGE, len(lazy.hits))
    assert [h.matched for h in lazy.hits] == [h.matched for h in eager.hits]
    assert any(h.matched for h in lazy.hits)
