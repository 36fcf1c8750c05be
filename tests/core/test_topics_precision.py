"""Topic matching with precision (issue 10): typos only where users type them,
weak aliases that need context, a relevance threshold with centrality, and
bilingual expansion of keywords through `[[concept]]` tables."""

from __future__ import annotations

import pytest

from paperbot.core.topics import (
    EXPANSION_WEIGHT,
    RELEVANCE_THRESHOLD,
    TOPIC_LEAD_WEIGHT,
    TOPIC_TITLE_WEIGHT,
    Topic,
    Vocabulary,
    VocabularyError,
    build_corpus,
    expand_bilingual,
    explain,
    match_topic,
    parse_vocabulary,
    resolve,
    score_paper,
)

VOCABULARY = """
[[topic]]
id = "optimizers"
name = "Optimizers"
zh = "优化器"
aliases = ["Shampoo", "二阶优化"]
weak_aliases = ["momentum", "动量"]

[[topic]]
id = "distillation"
name = "Knowledge distillation"
zh = "知识蒸馏"
aliases = ["distillation", "蒸馏"]
weak_aliases = ["teacher", "教师模型"]

[[topic]]
id = "quantization"
name = "Quantization"
zh = "量化"
aliases = ["low-bit"]

[[concept]]
en = ["low-rank", "LoRA"]
zh = ["低秩"]

[[concept]]
en = ["repetition", "repeated data", "data repetition"]
zh = ["重复数据", "数据重复"]
"""

LATE = "本文研究一个与主题关系不大的问题，提出新的训练框架并在多个基准上验证效果，最后顺带讨论"
"""A summary opening that pushes a term appended to it out of the lead."""


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return parse_vocabulary(VOCABULARY)


def _topic(vocab: Vocabulary, topic_id: str) -> Topic:
    found = vocab.get(topic_id)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("typed", "matches"),
    [
        ("quantizatoin", {1, 3}),  # the user's typo, corrected to corpus words
        ("quantizaton", {3}),  # a word some paper uses is taken as typed
        ("distilation", {2}),
        ("quantization", {1}),  # exact; the second title's typo is not guessed at
        ("quantisation", {1}),  # British spelling folds, no typo needed
    ],
)
def test_typos_are_forgiven_in_what_users_type_only(
    vocab: Vocabulary, typed: str, matches: set[int]
) -> None:
    corpus = build_corpus(
        [
            (1, "Quantization at Scale", ""),
            (2, "Distillation for Small Models", ""),
            (3, "Quantizaton Errors in Titles", ""),
        ]
    )
    found = match_topic(Topic.keyword(typed), corpus, vocabulary=vocab)
    assert set(found.ids.tolist()) == matches


@pytest.mark.parametrize(
    ("topic_id", "title", "summary", "matches"),
    [
        ("optimizers", "MosaicBERT: Optimized for Fast Pretraining", "", False),  # inflection
        ("optimizers", "Conformal Risk Training", "我们优化了风险", False),
        ("optimizers", "Optimizers Revisited", "", True),
        ("optimizers", "Shampoo Revisted", "", True),
        ("optimizers", "Shampo Revisited", "", False),  # the paper's typo
        ("quantization", "Low-Bit Training", "", True),
        ("quantization", "Un-Low-Bit Training", "", False),  # another word: un-low
        ("distillation", "Re-Distillation Curves", "", False),  # re-distillation
        ("distillation", "Self-Distillation Curves", "", True),  # self is a word
    ],
)
def test_vocabulary_topics_match_papers_exactly(
    vocab: Vocabulary, topic_id: str, title: str, summary: str, matches: bool
) -> None:
    assert (score_paper(_topic(vocab, topic_id), title, summary) > 0) is matches


def test_users_typos_still_resolve_to_topics(vocab: Vocabulary) -> None:
    assert resolve("Optimzers", vocab).key == "optimizers"
    assert resolve("distilation", vocab).key == "distillation"


@pytest.mark.parametrize(
    ("title", "summary", "matches"),
    [
        ("Compute as Teacher", "", True),  # a weak alias in the title counts
        ("Self-Supervision", "用教师模型给出伪标签", False),  # alone in the summary: no
        ("Self-Supervision", "用教师模型进行蒸馏", True),  # beside another term: yes
        ("Self-Supervision", "teacher and student networks", False),
        ("Teacher Forcing Revisited", "", True),  # title: the cost of the rule, accepted
    ],
)
def test_weak_aliases_need_context(
    vocab: Vocabulary, title: str, summary: str, matches: bool
) -> None:
    distillation = _topic(vocab, "distillation")
    assert (score_paper(distillation, title, summary) > 0) is matches
    assert bool(explain(distillation, title, summary)) is matches


def test_a_weak_alias_beside_a_strong_one_adds_to_the_score(vocab: Vocabulary) -> None:
    distillation = _topic(vocab, "distillation")
    alone = score_paper(distillation, "Distillation", "")
    with_weak = score_paper(distillation, "Distillation", "教师模型很大")
    assert with_weak > alone
    assert explain(distillation, "Distillation", "教师模型很大") == (
        "title: distillation",
        "summary: 教师模型",
    )


@pytest.mark.parametrize(
    ("title", "summary", "expected"),
    [
        ("Shampoo at Scale", "", TOPIC_TITLE_WEIGHT),
        ("A Study", "二阶优化器的新分析", TOPIC_LEAD_WEIGHT + 0.5),  # lead: 二阶优化 + 优化器
        ("A Study", "二阶优化的新分析", TOPIC_LEAD_WEIGHT),
        ("A Study", LATE + "二阶优化。", 0.0),  # one passing mention: below the threshold
        ("A Study", LATE + "二阶优化，二阶优化。", 0.0),  # repeated, still alone
        ("A Study", LATE + "二阶优化与Shampoo，二阶优化。", 2.0),  # repeated with another term
    ],
)
def test_score_reflects_how_central_the_topic_is(
    vocab: Vocabulary, title: str, summary: str, expected: float
) -> None:
    assert score_paper(_topic(vocab, "optimizers"), title, summary) == pytest.approx(expected)


def test_threshold_separates_central_from_passing(vocab: Vocabulary) -> None:
    optimizers = _topic(vocab, "optimizers")
    corpus = build_corpus(
        [
            (1, "Shampoo at Scale", ""),
            (2, "A Study", "二阶优化的新分析"),
            (3, "A Study", LATE + "二阶优化。"),
        ]
    )
    found = match_topic(optimizers, corpus)
    assert found.ids.tolist() == [1, 2]
    assert all(score >= RELEVANCE_THRESHOLD for score in found.scores.tolist())


@pytest.mark.parametrize(
    ("text", "includes", "excludes"),
    [
        ("low-rank", {"low rank", "lora", "低秩"}, set()),
        ("低秩", {"低秩", "low rank", "lora"}, set()),
        ("data repetition", {"重复数据", "数据重复", "repetition"}, {"低秩"}),
        ("LoRA", {"低秩"}, {"重复数据"}),
        ("flash attention", {"flash attention"}, {"低秩"}),  # no concept: itself only
    ],
)
def test_expand_bilingual_both_ways(
    vocab: Vocabulary, text: str, includes: set[str], excludes: set[str]
) -> None:
    expanded = dict(expand_bilingual(text, vocab))
    assert includes <= set(expanded)
    assert not excludes & set(expanded)
    first = next(iter(expand_bilingual(text, vocab)))
    assert first[1] == 1.0  # the text itself comes first, at full weight
    assert all(w <= EXPANSION_WEIGHT for t, w in expanded.items() if t != first[0])


def test_longer_texts_are_expanded_less(vocab: Vocabulary) -> None:
    short = dict(expand_bilingual("data repetition", vocab))["重复数据"]
    longer = dict(expand_bilingual("data repetition in pretraining", vocab))["重复数据"]
    assert 0 < longer < short
    long_text = "data repetition in large language model pretraining"
    assert expand_bilingual(long_text, vocab) == [(long_text, 1.0)]
    assert expand_bilingual("???", vocab) == []


@pytest.mark.parametrize(
    ("keyword", "title", "summary", "matches"),
    [
        ("data repetition", "Scaling With Limited Data", "研究重复数据对训练的影响", True),
        ("low-rank", "LoRA Adapters Revisited", "", True),
        ("低秩", "Depth Promotes Low-Rank", "", True),
        ("low-rank", "A Study", LATE + "低秩。", False),  # expansions are weaker still
        # a concept saying part of the keyword only supports other evidence
        ("low-rank adapter", "低秩方法", "", False),
        ("low-rank adapter", "Low-Rank Adapter Tuning", "", True),
        ("low-rank adapter", "Low-Rank Adapter Tuning", "低秩", True),
    ],
)
def test_keywords_match_papers_in_the_other_language(
    vocab: Vocabulary, keyword: str, title: str, summary: str, matches: bool
) -> None:
    kw = Topic.keyword(keyword)
    corpus = build_corpus([(1, title, summary)])
    assert (len(match_topic(kw, corpus, vocabulary=vocab)) == 1) is matches
    assert bool(explain(kw, title, summary, vocabulary=vocab)) is matches


def test_expansions_score_below_direct_hits(vocab: Vocabulary) -> None:
    kw = Topic.keyword("low-rank")
    direct = score_paper(kw, "Low-Rank Features", "", vocabulary=vocab)
    expanded = score_paper(kw, "A Study", "低秩特征的研究", vocabulary=vocab)
    assert direct > expanded > 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (VOCABULARY + '\n[[concept]]\nen = ["x"]\n', "needs English 'en' and Chinese 'zh'"),
        (VOCABULARY + '\n[[concept]]\nen = ["x"]\nzh = ["no chinese"]\n', "Chinese 'zh'"),
        (VOCABULARY + '\n[[concept]]\nen = ["x"]\nzh = ["甲"]\nfr = ["y"]\n', "unknown key 'fr'"),
        (VOCABULARY + '\n[[concept]]\nen = "x"\nzh = ["甲"]\n', "'en' must be a list"),
        (VOCABULARY.replace('["momentum", "动量"]', '"momentum"'), "'weak_aliases' must be a list"),
        (VOCABULARY.replace('"动量"]', '"动量", "Shampoo"]'), "'Shampoo' is twice in this topic"),
        (VOCABULARY.replace('"教师模型"]', '"教师模型", "动量"]'), "already in topic 'optimizers'"),
        ("[[concepts]]\nen = []\n", "unknown key 'concepts'"),
    ],
)
def test_vocabulary_errors_for_weak_aliases_and_concepts(text: str, message: str) -> None:
    with pytest.raises(VocabularyError, match=r"topics\.toml:") as caught:
        parse_vocabulary(text)
    assert message in str(caught.value)


def test_concept_errors_name_the_concept_line() -> None:
    text = VOCABULARY + '\n[[concept]]\nen = ["x"]\nzh = ["甲"]\nfr = ["y"]\n'
    with pytest.raises(VocabularyError) as caught:
        parse_vocabulary(text)
    line = text.splitlines().index('fr = ["y"]') + 1
    assert f"topics.toml:{line}:" in str(caught.value)


def test_weak_aliases_are_terms_users_can_type(vocab: Vocabulary) -> None:
    # A keyword matched within its topic (`test_topics_scope`).
    assert (resolve("teacher", vocab).kind, resolve("teacher", vocab).key) == ("keyword", "teacher")
    assert _topic(vocab, "distillation").weak_aliases == ("teacher", "教师模型")
    assert "teacher" in _topic(vocab, "distillation").terms
