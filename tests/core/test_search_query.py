"""Reading queries: normalisation, venue/year filters, bad queries, expansion."""

from __future__ import annotations

import pytest

from paperbot.core.search import QueryProblem, Term, expand_terms, parse_query

VENUES = ("ICLR", "ICML", "NeurIPS")


@pytest.mark.parametrize(
    ("raw", "terms", "venue", "year"),
    [
        ("QLoRA", ["qlora"], None, None),
        ("ＱＬｏＲＡ", ["qlora"], None, None),  # full-width -> NFKC
        ("數據混合", ["数据混合"], None, None),  # traditional -> simplified
        ("資料去重", ["数据去重"], None, None),  # Taiwan vocabulary (tw2sp)
        ("MoE路由", ["moe", "路由"], None, None),  # split at the script boundary
        ("数据混合，去重", ["数据混合", "去重"], None, None),  # full-width comma splits
        ("NeurIPS 2023 QLoRA", ["qlora"], "NeurIPS", 2023),
        ("ICLR 2026 Shampoo", ["shampoo"], "ICLR", 2026),
        ("neurips2023 qlora", ["qlora"], "NeurIPS", 2023),  # glued venue+year
        ("2025 scaling", ["scaling"], None, 2025),
        ("GPT 4 scaling", ["gpt", "scaling"], None, None),  # 4 is no year; one letter is noise
        ("mixture of experts", ["mixture", "experts"], None, None),  # stop word dropped
        ("sp\u200bec\u202eulative", ["speculative"], None, None),  # invisible controls removed
        ("EMNLP diffusion", ["emnlp", "diffusion"], None, None),  # not a loaded venue: a word
    ],
)
def test_terms_and_filters(raw: str, terms: list[str], venue: str | None, year: int | None) -> None:
    parsed = parse_query(raw, venues=VENUES)
    assert parsed.problem is None
    assert [t.text for t in parsed.terms] == terms
    assert (parsed.venue, parsed.year) == (venue, year)


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("", QueryProblem.EMPTY),
        ("   \t\n ", QueryProblem.EMPTY),
        ("\u200b\u202e\u2066", QueryProblem.EMPTY),  # RTL/bidi controls only
        ("x" * 3000, QueryProblem.TOO_LONG),
        ("🙂🔥🚀", QueryProblem.NO_TERMS),
        ("?!…，。、", QueryProblem.NO_TERMS),
        ("*", QueryProblem.NO_TERMS),
        # Words, but none a paper is about: not "only punctuation".
        ('" OR 1=1 --', QueryProblem.ONLY_COMMON_WORDS),
        ("the of and", QueryProblem.ONLY_COMMON_WORDS),
        ("x", QueryProblem.ONLY_COMMON_WORDS),
        ("的", QueryProblem.ONLY_COMMON_WORDS),  # in every summary
        ("的了 和", QueryProblem.ONLY_COMMON_WORDS),
    ],
)
def test_bad_queries_are_classified(raw: str, problem: QueryProblem) -> None:
    parsed = parse_query(raw, venues=VENUES, max_length=300)
    assert parsed.problem is problem
    assert parsed.terms == ()


def test_length_limit_counts_visible_characters() -> None:
    assert parse_query("a" * 300, max_length=300).problem is None
    assert parse_query("a" * 301, max_length=300).problem is QueryProblem.TOO_LONG
    # Invisible characters do not count against the limit.
    assert parse_query("ab" + "\u200b" * 400, max_length=300).problem is None


def test_options_win_over_the_query_and_are_canonicalised() -> None:
    parsed = parse_query("ICLR 2026 shampoo", venues=VENUES, venue="neurips", year=2023)
    assert (parsed.venue, parsed.year) == ("NeurIPS", 2023)
    assert [t.text for t in parsed.terms] == ["shampoo"]


@pytest.mark.parametrize(
    ("venue", "venues", "problem"),
    [
        ("foo", VENUES, QueryProblem.UNKNOWN_VENUE),
        ("NIPS", VENUES, QueryProblem.UNKNOWN_VENUE),
        (" neurips ", VENUES, None),  # any case, spaces trimmed
        ("foo", (), None),  # nothing loaded: no list to check against
    ],
)
def test_an_explicit_venue_must_be_loaded(
    venue: str, venues: tuple[str, ...], problem: QueryProblem | None
) -> None:
    parsed = parse_query("shampoo", venues=venues, venue=venue)
    assert parsed.problem is problem
    assert parsed.venue in (*venues, venue.strip())


def test_filter_only_query() -> None:
    parsed = parse_query("NeurIPS 2023", venues=VENUES)
    assert parsed.problem is None
    assert parsed.is_filter_only
    assert parse_query("", venue="ICLR").is_filter_only


EXPANSIONS = {
    "混合专家": ("mixture of experts", "moe", "专家混合"),
    "mixture of experts": ("混合专家", "moe"),
    "moe": ("混合专家", "mixture of experts"),
    "去重": ("deduplication",),
}


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        # An alias is spelled right (`typos=False`): never matched as a near word.
        (["混合专家"], [Term("混合专家", ("mixture of experts", "moe"), typos=False)]),
        (
            ["混合专家模型"],
            [Term("混合专家", ("mixture of experts", "moe"), typos=False), Term("模型")],
        ),
        (["数据去重"], [Term("数据"), Term("去重", ("deduplication",), typos=False)]),
        (
            ["sparse", "mixture", "of", "experts"],
            [Term("sparse"), Term("mixture of experts", ("混合专家",), typos=False)],
        ),
        (["moe"], [Term("moe", ("混合专家",), typos=False)]),
        # Plural forms say the alias too.
        (
            ["mixtures", "of", "experts"],
            [Term("mixture of experts", ("混合专家",), typos=False)],
        ),
        (["experts"], [Term("experts")]),
    ],
)
def test_expansion_hook(words: list[str], expected: list[Term]) -> None:
    assert list(expand_terms(words, EXPANSIONS)) == expected


def test_alias_spans_are_made_once_per_table_and_never_shared() -> None:
    from paperbot.core.search import alias_spans

    other = {"去重": ("dedup",)}
    spans = alias_spans(EXPANSIONS)
    assert alias_spans(EXPANSIONS) is spans  # the next query reuses them
    assert spans.by_first["mixture"] == [(("mixture", "of", "expert"), "mixture of experts")]
    assert spans.cjk_singles == {"混合专家", "去重"}
    # Another table (even with a key in common) gets its own; so does the first again.
    assert list(expand_terms(["去重"], other)) == [Term("去重", ("dedup",), typos=False)]
    assert list(expand_terms(["去重"], EXPANSIONS)) == [
        Term("去重", ("deduplication",), typos=False)
    ]


def test_expansion_keeps_stop_words_inside_an_alias() -> None:
    parsed = parse_query("Mixture of Experts", expansions=EXPANSIONS)
    assert [t.text for t in parsed.terms] == ["mixture of experts"]
