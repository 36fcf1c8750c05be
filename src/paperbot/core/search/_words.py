"""Query words that say little about a topic: English stop words, the
words that frame a question in either language, and generic words."""

from __future__ import annotations

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
CJK_QUESTION_WORDS = (
    "为什么",
    "怎么样",
    "怎么办",
    "怎么",
    "怎样",
    "如何",
    "哪些",
    "哪个",
    "什么",
    "是否",
    "能否",
    "可以",
    "有没有",
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
        "study",
        "result",
        "results",
        "use",
        "using",
        "used",
        "make",
        "get",
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
    return text in QUESTION_WORDS or text in CJK_QUESTION_WORDS
