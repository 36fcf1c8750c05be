"""Pure topic core: keys, the vocabulary file, resolution, autocomplete, matching."""

from __future__ import annotations

import numpy as np
import pytest

from paperbot.core import limits, topics
from paperbot.core.text import normalize
from paperbot.core.topics import (
    MAX_TOPIC_SCORE,
    TOPIC_TITLE_WEIGHT,
    Topic,
    TopicInputError,
    Vocabulary,
    VocabularyError,
    build_corpus,
    check_topic_text,
    explain,
    is_typo_of,
    match_topic,
    parse_vocabulary,
    resolve,
    score_paper,
    suggest,
    term_key,
)
from tests.support.topics import shipped_vocabulary

SMALL = """
[[topic]]
id = "scaling-laws"
name = "Scaling laws"
zh = "缩放定律"
aliases = ["neural scaling", "Chinchilla", "缩放律", "幂律"]

[[topic]]
id = "rl"
name = "Reinforcement learning"
zh = "强化学习"
aliases = ["RL", "policy gradient"]

[[topic]]
id = "speculative-decoding"
name = "Speculative decoding"
zh = "推测解码"
aliases = ["draft model", "投机解码"]

[[topic]]
id = "quantization"
name = "Quantization"
zh = "量化"
aliases = ["low-bit", "4-bit"]

[[topic]]
id = "model-merging"
name = "Model merging"
zh = "模型合并"
aliases = ["merging", "task arithmetic"]

[[topic]]
id = "long-context"
name = "Long context"
zh = "长上下文"
aliases = ["KV 缓存", "context length"]
"""


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return parse_vocabulary(SMALL)


def topic(vocab: Vocabulary, topic_id: str) -> Topic:
    found = vocab.get(topic_id)
    assert found is not None
    return found


# -- keys -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Scaling Laws", "scaling law"),
        ("quantisation", "quantization"),
        ("In-Context   Learning", "in context learning"),
        ("ＲＬＨＦ", "rlhf"),  # full-width
        ("縮放定律", "缩放定律"),  # traditional
        ("KV缓存", "kv 缓存"),  # script boundary splits
        ("GPT-2 models", "gpt 2 model"),
        ("\u200bdeduplication\u200b", "deduplication"),
        ("!!!", ""),
    ],
)
def test_term_key(text: str, key: str) -> None:
    assert term_key(text) == key


# -- the vocabulary file ----------------------------------------------------


def test_small_vocabulary_parses(vocab: Vocabulary) -> None:
    assert [t.key for t in vocab.topics][:2] == ["scaling-laws", "rl"]
    scaling = topic(vocab, "scaling-laws")
    assert scaling.terms == (
        "Scaling laws",
        "缩放定律",
        "neural scaling",
        "Chinchilla",
        "缩放律",
        "幂律",
    )
    assert scaling.label == "Scaling laws · 缩放定律"


def test_expansions_map_each_term_to_the_topics_other_terms(vocab: Vocabulary) -> None:
    expansions = vocab.expansions()
    assert expansions[normalize("Chinchilla")] == (
        "scaling laws",
        "缩放定律",
        "neural scaling",
        "缩放律",
        "幂律",
    )
    assert "chinchilla" in expansions["缩放定律"]
    assert "rl" in expansions["强化学习"]
    assert "scaling laws" not in expansions["强化学习"]


def test_weak_aliases_neither_expand_nor_are_expanded_to() -> None:
    vocab = parse_vocabulary(
        '[[topic]]\nid = "distillation"\nname = "Distillation"\nzh = "蒸馏"\n'
        'aliases = ["knowledge distillation"]\nweak_aliases = ["teacher"]\n'
    )
    expansions = vocab.expansions()
    assert "teacher" not in expansions
    assert expansions["distillation"] == ("蒸馏", "knowledge distillation")


def _one(body: str) -> str:
    return f'[[topic]]\nid = "a"\nname = "A"\nzh = "甲"\n{body}'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[[topic]\nid = 'x'", "not valid TOML"),
        ("[[topic]]\nid = 'x'\nname = \"unterminated\n", "line 3"),
        ("", "no topics"),
        ("title = 'x'\n", ":1: unknown key 'title'"),
        ('[[topic]]\nid = "a"\nzh = "甲"\n', ":1: topic is missing 'name'"),
        ('[[topic]]\nid = "a"\nname = "A"\n', ":1: topic is missing 'zh'"),
        (_one('colour = "red"\n'), ":5: unknown key 'colour'"),
        (_one('aliases = "one"\n'), ":5: 'aliases' must be a list of strings"),
        (_one("aliases = [\n  'b',\n  3,\n]\n"), ":5: 'aliases' must be a list of strings"),
        (
            '[[topic]]\nid = "Not A Slug"\nname = "A"\nzh = "甲"\n',
            ":2: id 'Not A Slug' must be a slug",
        ),
        ('[[topic]]\nid = "a"\nname = "A"\nzh = "alpha"\n', ":4: zh 'alpha' holds no Chinese"),
        ('[[topic]]\nid = "a"\nname = "  "\nzh = "甲"\n', ":3: 'name' must be a non-empty string"),
        (_one('aliases = ["ok", "???"]\n'), ":5: '???' has no letters"),
        (_one(f'aliases = ["{"x" * 101}"]\n'), "longer than 100"),
        (
            _one("") + '\n[[topic]]\nid = "a"\nname = "B"\nzh = "乙"\n',
            ":7: duplicate topic id 'a'",
        ),
        (
            _one('aliases = ["foo"]\n')
            + '\n[[topic]]\nid = "b"\nname = "B"\nzh = "乙"\naliases = [\n  "bar",\n  "Foos",\n]\n',
            ":13: 'Foos' is already in topic 'a' (as 'foo'",
        ),
        (_one('aliases = ["a"]\n'), ":5: 'a' is twice in this topic (as 'A'"),
        (_one('aliases = ["甲"]\n'), "is twice in this topic"),
    ],
)
def test_vocabulary_errors_name_the_line(text: str, expected: str) -> None:
    with pytest.raises(VocabularyError) as caught:
        parse_vocabulary(text, source="topics.toml")
    assert str(caught.value).startswith("topics.toml")
    assert expected in str(caught.value)


def test_shipped_vocabulary_is_valid_and_sized() -> None:
    vocabulary = shipped_vocabulary()
    assert 30 <= len(vocabulary) <= 60
    for t in vocabulary.topics:
        assert t.zh
        assert t.name
        assert len(t.label) <= limits.CHOICE_NAME_MAX


# -- what users type ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "key"),
    [
        ("scaling laws", "topic", "scaling-laws"),
        ("Scaling-Laws", "topic", "scaling-laws"),
        ("scaling law", "topic", "scaling-laws"),
        ("缩放定律", "topic", "scaling-laws"),
        ("縮放定律", "topic", "scaling-laws"),  # traditional
        ("  CHINCHILLA ", "keyword", "chinchilla"),  # an alias: narrower than its topic
        ("scalling laws", "topic", "scaling-laws"),  # one typo
        ("speculativ decodnig", "topic", "speculative-decoding"),  # two edits, long text
        ("quantisation", "topic", "quantization"),  # British spelling
        ("rl", "topic", "rl"),
        ("GaLore", "keyword", "galore"),
        ("learning", "keyword", "learning"),
        ("扩散", "keyword", "扩散"),
        ("rk", "keyword", "rk"),  # short text is never fuzzy
        ("mergin", "keyword", "merging"),  # read as the alias it misspells, "merging"
        ("Transformers", "keyword", "transformer"),
    ],
)
def test_resolve(vocab: Vocabulary, text: str, kind: str, key: str) -> None:
    found = resolve(text, vocab)
    assert (found.kind, found.key) == (kind, key)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Type a topic"),
        ("   \u200b ", "Type a topic"),
        ("x" * 101, "at most 100 characters; yours has 101"),
        ("12345", "at least one letter"),
        ("!!! ???", "at least one letter"),
        ("αβγ", "at least one letter"),  # letters, but none we can match
        # Words every paper says: following them would post every paper.
        ("the", "only common words"),
        ("Of The", "only common words"),
        ("的", "only common words"),
        ("为什么", "only common words"),
        ("how do we", "only common words"),
    ],
)
def test_unusable_topics_are_refused(vocab: Vocabulary, text: str, message: str) -> None:
    with pytest.raises(TopicInputError, match=message):
        resolve(text, vocab)


def test_topic_of_exactly_100_characters_is_accepted() -> None:
    assert check_topic_text("y" * 100) == "y" * 100


def test_keyword_keeps_what_the_user_wrote(vocab: Vocabulary) -> None:
    keyword = resolve("  GaLore   optimizer ", vocab)
    assert keyword.is_keyword
    assert keyword.name == "GaLore optimizer"
    assert keyword.key == "galore optimizer"
    assert keyword.label == "“GaLore optimizer” (keyword · 关键词)"


# -- autocomplete ---------------------------------------------------------


def assert_discord_sized(choices: list) -> None:  # type: ignore[type-arg]
    assert len(choices) <= limits.AUTOCOMPLETE_CHOICES_MAX
    for choice in choices:
        assert 1 <= len(choice.name) <= limits.CHOICE_NAME_MAX
        assert 1 <= len(choice.value) <= limits.CHOICE_VALUE_MAX
    assert len({c.value for c in choices}) == len(choices)


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("scal", "scaling-laws"),
        ("Scaling laws", "scaling-laws"),
        ("缩放", "scaling-laws"),
        ("chinch", "scaling-laws"),
        ("spec", "speculative-decoding"),
        ("投机", "speculative-decoding"),
        ("quantisation", "quantization"),
        ("sclaing", "scaling-laws"),  # a typo still finds it
        ("merging", "model-merging"),
    ],
)
def test_suggest_best_first(vocab: Vocabulary, text: str, first: str) -> None:
    choices = suggest(text, vocab)
    assert_discord_sized(choices)
    assert choices[0].value == first


def test_suggest_shows_the_alias_that_matched(vocab: Vocabulary) -> None:
    choices = suggest("chinch", vocab)
    assert choices[0].name == "Scaling laws · 缩放定律 (Chinchilla)"


def test_suggest_offers_the_text_as_a_keyword(vocab: Vocabulary) -> None:
    choices = suggest("GaLore", vocab)
    assert_discord_sized(choices)
    assert choices[0].value == "GaLore"
    assert "keyword" in choices[0].name
    # The keyword choice resolves to the keyword it promises.
    assert resolve(choices[0].value, vocab).is_keyword


def test_suggest_offers_no_keyword_for_a_vocabulary_topic(vocab: Vocabulary) -> None:
    choices = suggest("缩放定律", vocab)
    assert choices[0].value == "scaling-laws"
    assert {c.value for c in choices} <= {t.key for t in vocab.topics}


@pytest.mark.parametrize("text", ["the", "of the", "的"])
def test_suggest_offers_no_keyword_of_common_words(vocab: Vocabulary, text: str) -> None:
    # It would be refused when chosen: autocomplete never offers what fails.
    assert all("keyword" not in c.name for c in suggest(text, vocab))


def test_suggest_empty_text_lists_topics_alphabetically(vocab: Vocabulary) -> None:
    choices = suggest("", vocab)
    names = [c.name for c in choices]
    assert names == sorted(names, key=str.casefold)
    assert len(choices) == len(vocab)


def test_suggest_at_most_25_and_within_limits_for_the_shipped_vocabulary() -> None:
    shipped = shipped_vocabulary()
    for text in ("", "a", "learning", "模型", "x" * 150, "数据", "🙂", "e"):
        choices = suggest(text, shipped)
        assert_discord_sized(choices)
    assert len(suggest("", shipped)) == limits.AUTOCOMPLETE_CHOICES_MAX
    # Too long to subscribe: no keyword choice is offered.
    assert not any("keyword" in c.name for c in suggest("x" * 150, shipped))


def test_every_topic_choice_value_resolves_back_to_its_topic() -> None:
    shipped = shipped_vocabulary()
    for t in shipped.topics:
        assert resolve(t.key, shipped) == t


# -- matching ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("topic_id", "title", "summary", "why"),
    [
        ("scaling-laws", "Scaling Laws for Reward Models", "", ("title: Scaling laws",)),
        ("scaling-laws", "A Study", "本文研究缩放定律的成因。", ("summary: 缩放定律",)),
        ("scaling-laws", "A Study", "本文研究縮放定律。", ("summary: 缩放定律",)),  # traditional
        ("scaling-laws", "A Study", "按 Chinchilla 配比训练", ("summary: Chinchilla",)),
        ("scaling-laws", "Neural Scaling of Depth", "", ("title: neural scaling",)),
        ("rl", "RL from Human Feedback", "", ("title: RL",)),
        ("rl", "URL Parsing at Scale", "解析 URL 的方法", ()),  # never inside a word
        ("rl", "Ctrl-RL Agents", "", ("title: RL",)),  # hyphen is a word boundary
        ("rl", "Policy Gradients Revisited", "", ("title: policy gradient",)),  # inflection
        ("quantization", "Quantisation of LLMs", "", ("title: Quantization",)),  # British
        ("quantization", "4-bit Training", "用 4 bit 整数", ("title: 4-bit", "summary: 4-bit")),
        ("long-context", "Compressing the KV缓存", "", ("title: KV 缓存",)),
        ("long-context", "Long Contexts", "", ("title: Long context",)),
        ("model-merging", "Emerging Abilities", "", ()),  # short words are not typo-matched
        # Papers' words are matched exactly: typo tolerance is for what users type.
        ("speculative-decoding", "Faster Speculative Decodng", "", ()),
        ("speculative-decoding", "Fast Inference", "采用投机解码加速", ("summary: 投机解码",)),
    ],
)
def test_explain(
    vocab: Vocabulary, topic_id: str, title: str, summary: str, why: tuple[str, ...]
) -> None:
    assert explain(topic(vocab, topic_id), title, summary, vocab.term_words()) == why


@pytest.mark.parametrize(
    ("keyword", "title", "summary", "matches"),
    [
        ("GaLore", "Low-Rank Training", "发现GaLore等低秩优化方法", True),  # Latin inside Chinese
        ("galore", "GaLore: Memory-Efficient Training", "", True),
        ("learning", "Deep Learning at Scale", "", True),
        ("learning", "Learnings from Failures", "", True),  # inflection folds
        ("learn", "Deep Learning at Scale", "", False),  # whole words only
        ("扩散", "A Model", "基于扩散的生成", True),
        ("擴散", "A Model", "基于扩散的生成", True),  # traditional keyword
        ("rl", "URL Parsing", "", False),
        ("transfomer", "Transformer Circuits", "", True),  # a typed typo no paper uses
        ("flash attention", "Flash-Attention Kernels", "", True),
        ("attention flash", "Flash-Attention Kernels", "", False),  # word order matters
    ],
)
def test_keyword_matching(keyword: str, title: str, summary: str, matches: bool) -> None:
    kw = Topic.keyword(keyword)
    assert bool(explain(kw, title, summary)) is matches
    assert (score_paper(kw, title, summary) > 0) is matches


@pytest.mark.parametrize(
    ("word", "candidate", "typo"),
    [
        ("decoding", "decodng", True),  # deletion
        ("decoding", "decodign", True),  # swap of neighbours
        ("decoding", "encoding", False),  # different first letter
        ("merging", "emerging", False),
        ("merge", "merg", False),  # too short to guess
        ("distillation", "distilation", True),
        ("distillation", "distilaton", True),  # two edits in a long word
        ("quantization", "quantized", False),
        ("learning", "leaning", False),  # protected: another vocabulary word
        ("learning", "learning", False),
    ],
)
def test_is_typo_of(word: str, candidate: str, typo: bool) -> None:
    assert is_typo_of(word, candidate, protected=frozenset({"leaning"})) is typo


def test_title_counts_more_than_summary(vocab: Vocabulary) -> None:
    scaling = topic(vocab, "scaling-laws")
    in_title = score_paper(scaling, "Scaling Laws Revisited", "")
    in_summary = score_paper(scaling, "Revisited", "关于缩放定律")
    in_both = score_paper(scaling, "Scaling Laws Revisited", "关于缩放定律")
    typo_title = score_paper(scaling, "Scalng Laws Revisited", "")
    assert in_title == TOPIC_TITLE_WEIGHT
    assert in_both > in_title > in_summary > 0
    assert typo_title == 0  # a paper's misspelling is not taken for the topic


def test_package_exports_its_public_names() -> None:
    # ruff's RUF022 keeps `__all__` sorted (constants, classes, then functions).
    assert len(set(topics.__all__)) == len(topics.__all__)
    assert all(not name.startswith("_") and hasattr(topics, name) for name in topics.__all__)
    assert "MAX_TOPIC_SCORE" in topics.__all__


def test_max_topic_score_is_the_best_match_topic_gives(vocab: Vocabulary) -> None:
    scaling = topic(vocab, "scaling-laws")
    every_term = "Scaling laws, neural scaling and Chinchilla: 缩放定律 缩放律 幂律"
    best = score_paper(scaling, every_term, every_term)
    one_extra = score_paper(scaling, "Scaling Laws and Chinchilla", "缩放定律")
    assert best == MAX_TOPIC_SCORE
    assert 0 < one_extra < MAX_TOPIC_SCORE


def test_match_topic_ranks_and_ties_by_id(vocab: Vocabulary) -> None:
    corpus = build_corpus(
        [
            (30, "Nothing Here", "完全无关"),
            (20, "Training", "讨论缩放定律"),
            (10, "Scaling Laws", "缩放定律与 Chinchilla"),
            (5, "More", "幂律"),
            (40, "Scaling Laws Again", ""),
        ]
    )
    found = match_topic(topic(vocab, "scaling-laws"), corpus, vocab.term_words())
    assert found.ids.tolist() == [10, 40, 5, 20]
    assert found.scores.dtype == np.float64
    assert list(found.scores) == sorted(found.scores, reverse=True)


def test_empty_corpus_matches_nothing(vocab: Vocabulary) -> None:
    assert len(match_topic(topic(vocab, "rl"), build_corpus([]))) == 0
