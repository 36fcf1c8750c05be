"""Query words that say little about a topic: English stop words, the
words that frame a question in either language, and generic words."""

from __future__ import annotations

import re

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "the",
        "to",
        "via",
        "vs",
        "with",
    ]
)
# Words that ask rather than say: a question's frame ("how do I ...",
# "为什么...") carries no topic. Dropped from a query unless nothing else is
# left; CJK ones are also cut out of longer runs.
QUESTION_WORDS = frozenset(
    [
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "does",
        "do",
        "did",
        "can",
        "could",
        "should",
        "would",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "there",
        "this",
        "that",
        "these",
        "those",
        "any",
        "some",
        "about",
        "way",
        "ways",
        "anything",
        "something",
    ]
)
# Closed-class English words (pronouns, determiners and quantifiers,
# auxiliaries, conjunctions, prepositions, degree and time adverbs): the
# grammar of a sentence, never its topic. Their document frequency cannot
# tell: the summaries are Chinese, so `they` or `than` occur in a handful
# of English titles and would look as rare as `shampoo`. Dropped from a
# query like question words, unless nothing else is left ("less is more").
FUNCTION_WORDS = frozenset(
    [
        "he",
        "she",
        "they",
        "them",
        "their",
        "theirs",
        "it",
        "itself",
        "one",
        "ones",
        "us",
        "him",
        "her",
        "his",
        "hers",
        "am",
        "was",
        "were",
        "been",
        "being",
        "has",
        "have",
        "had",
        "having",
        "done",
        "doing",
        "all",
        "both",
        "each",
        "every",
        "either",
        "neither",
        "few",
        "many",
        "much",
        "more",
        "most",
        "less",
        "least",
        "other",
        "others",
        "another",
        "such",
        "same",
        "several",
        "own",
        "only",
        "very",
        "too",
        "also",
        "just",
        "even",
        "still",
        "already",
        "again",
        "ever",
        "never",
        "not",
        "no",
        "nor",
        "yet",
        "so",
        "than",
        "then",
        "thus",
        "hence",
        "therefore",
        "however",
        "though",
        "although",
        "because",
        "since",
        "while",
        "whereas",
        "if",
        "unless",
        "until",
        "whether",
        "after",
        "before",
        "during",
        "through",
        "over",
        "under",
        "above",
        "below",
        "between",
        "among",
        "against",
        "across",
        "along",
        "around",
        "behind",
        "beyond",
        "within",
        "without",
        "toward",
        "towards",
        "upon",
        "onto",
        "off",
        "out",
        "up",
        "down",
        "per",
        "here",
        "now",
        "often",
        "always",
        "sometimes",
    ]
)
# Chinese particles, prepositions and conjunctions (the grammar characters
# of a question: 在, 中, 的, 了...). One alone is dropped like a question
# word; at the edge of a longer piece it is cut off.
CJK_PARTICLES = "在中的了是和与及或对把被让从向于将就都也而吗呢吧啊"
CJK_QUESTION_WORDS = (
    "为什么",
    "怎么样",
    "怎么办",
    "怎么",
    "怎样",
    "如何",
    "有哪些",
    "哪些",
    "哪个",
    "哪种",
    "有什么",
    "什么",
    "是否",
    "能否",
    "能不能",
    "可以",
    "有没有",
    # Asking for advice: what is best, a good way, worth it.
    "好办法",
    "办法",
    "最好",
    "合适",
    "值得",
    "建议",
    "吗",
    "呢",
)
# Words every paper here could say: they still count, a fifth as much as
# their IDF says (stage 1 and stage 2 share the weights).
GENERIC_WORDS = frozenset(
    [
        "model",
        "models",
        "paper",
        "papers",
        "method",
        "methods",
        "approach",
        "approaches",
        "work",
        "works",
        "study",
        "studies",
        "result",
        "results",
        "use",
        "uses",
        "using",
        "used",
        "make",
        "makes",
        "made",
        "making",
        "get",
        "gets",
        "getting",
        "better",
        "new",
        "large",
        "方法",
        "模型",
        "论文",
        "研究",
        "问题",
        "大模型",
    ]
)


def is_question_word(text: str) -> bool:
    """A word that frames a question (how, why, 为什么) rather than a topic."""
    return (
        text in QUESTION_WORDS
        or text in CJK_QUESTION_WORDS
        or text in FUNCTION_WORDS
        or (len(text) == 1 and text in CJK_PARTICLES)
    )


def is_common_word(text: str) -> bool:
    """A word no paper is about: a stop, question or function word, or a
    run of Chinese grammar characters (的, 的了). Text made only of these
    finds every paper or none, so it is neither a search nor a topic."""
    return text in STOP_WORDS or is_question_word(text) or is_particle_run(text)


def is_particle_run(text: str) -> bool:
    """Chinese grammar characters only (的, 的了): in every summary."""
    return bool(text) and all(ch in CJK_PARTICLES for ch in text)


# English words that end a hyphenated compound adjective whose idea is its
# first part: `quantization-aware` is about quantization, and its `aware`
# meets *Sharpness-Aware* only by the suffix. A closed class of English,
# like the bound prefixes `core.text` joins (re-, non-); words that carry
# an idea of their own there (`compute-optimal`, `long-range`) are not in it.
BOUND_FINALS = frozenset(
    [
        "agnostic",
        "augmented",
        "aware",
        "based",
        "centric",
        "conditioned",
        "constrained",
        "dependent",
        "driven",
        "enhanced",
        "free",
        "friendly",
        "guided",
        "independent",
        "informed",
        "intensive",
        "invariant",
        "like",
        "oriented",
        "preserving",
        "specific",
        "style",
        "wise",
    ]
)
_BOUND_FINAL = re.compile(r"(?<=[0-9a-z\u00c0-\u024f\u4e00-\u9fff])-([a-z]+)\b")


def bound_finals(normalized: str) -> frozenset[str]:
    """The `BOUND_FINALS` a normalised query says after a hyphen
    (`quantization-aware training` -> aware)."""
    if "-" not in normalized:
        return frozenset()
    return frozenset(m for m in _BOUND_FINAL.findall(normalized) if m in BOUND_FINALS)
