"""Topics: the bilingual vocabulary, resolving what users type, matching papers.

Pure functions only. The vocabulary arrives as TOML text (the service reads
the file); matching works on a `TopicCorpus` built once per corpus version.
Every piece of text, vocabulary and paper alike, is reduced to one *key*
form (`term_key`) before it is compared.

Import from this package only; its modules are private:
`_keys` (the key form), `_vocabulary` (`Topic`, `Concept`, `Vocabulary`,
TOML parsing with line-numbered errors), `_hierarchy` (`broader`: the
topics below a topic, whose strong terms count for it), `_bilingual` (`expand_bilingual`:
English <-> Chinese expansion of keywords and query terms), `_generic`
(what a keyword says without the field's generic words, the topics it
names a part of), `_input` (checking and resolving user text,
autocomplete), `_corpus` (papers prepared for matching), `_hits` (where a
topic's terms are found, which finds count, what says a keyword within a
topic), `_matching` (batch matching with scores and explanations; near
papers added from elsewhere), `_coverage` (how the vocabulary covers a
corpus), `_feedback` (the clear matches of a topic deciding its borderline
papers, a profile kept with the matches), `_append` (a corpus and its
matches following appended papers).
"""

from paperbot.core.topics._append import (
    append_corpus,
    apply_part,
    extend_matches,
    merge_matches,
    part_matches,
    update_corpus,
    with_part,
)
from paperbot.core.topics._bilingual import EXPANSION_WEIGHT, expand_bilingual
from paperbot.core.topics._corpus import TopicCorpus, build_corpus
from paperbot.core.topics._coverage import Coverage, coverage
from paperbot.core.topics._feedback import (
    ACCEPT_FEEDBACK,
    CLOSE_SCALE,
    KEEP_FEEDBACK,
    MIN_STRONG,
    REFRESH_SHARE,
    STRONG_SCORE,
    Profile,
    background_sample,
)
from paperbot.core.topics._generic import named_within
from paperbot.core.topics._hits import TOPIC_LEAD_WEIGHT, TOPIC_SUMMARY_WEIGHT, TOPIC_TITLE_WEIGHT
from paperbot.core.topics._input import (
    EMPTY_TOPIC,
    NO_LETTERS,
    ONLY_COMMON_WORDS,
    TOPIC_TOO_LONG,
    Choice,
    TopicInputError,
    check_topic_text,
    clip,
    resolve,
    suggest,
)
from paperbot.core.topics._keys import term_key
from paperbot.core.topics._matching import (
    FEEDBACK_REASON,
    MAX_TOPIC_SCORE,
    NEAR_LIMIT,
    RELEVANCE_THRESHOLD,
    TOPIC_EXTRA_TERM_WEIGHT,
    TOPIC_EXTRA_TERMS_COUNTED,
    TopicMatches,
    explain,
    match_topic,
    score_paper,
    with_more_near,
)
from paperbot.core.topics._persist import (
    FROZEN_PROFILE,
    TOPICS_FORMAT,
    corpus_arrays,
    corpus_from_arrays,
    matches_from_arrays,
    segment_matches,
    stored_mark,
    vocabulary_fingerprint,
)
from paperbot.core.topics._typed import TYPO_MIN_LENGTH, TYPO_QUALITY, is_typo_of
from paperbot.core.topics._vocabulary import (
    TOPIC_TEXT_MAX,
    Concept,
    Topic,
    TopicKind,
    Vocabulary,
    VocabularyError,
    parse_vocabulary,
)

__all__ = [
    "ACCEPT_FEEDBACK",
    "CLOSE_SCALE",
    "EMPTY_TOPIC",
    "EXPANSION_WEIGHT",
    "FEEDBACK_REASON",
    "FROZEN_PROFILE",
    "KEEP_FEEDBACK",
    "MAX_TOPIC_SCORE",
    "MIN_STRONG",
    "NEAR_LIMIT",
    "NO_LETTERS",
    "ONLY_COMMON_WORDS",
    "REFRESH_SHARE",
    "RELEVANCE_THRESHOLD",
    "STRONG_SCORE",
    "TOPICS_FORMAT",
    "TOPIC_EXTRA_TERMS_COUNTED",
    "TOPIC_EXTRA_TERM_WEIGHT",
    "TOPIC_LEAD_WEIGHT",
    "TOPIC_SUMMARY_WEIGHT",
    "TOPIC_TEXT_MAX",
    "TOPIC_TITLE_WEIGHT",
    "TOPIC_TOO_LONG",
    "TYPO_MIN_LENGTH",
    "TYPO_QUALITY",
    "Choice",
    "Concept",
    "Coverage",
    "Profile",
    "Topic",
    "TopicCorpus",
    "TopicInputError",
    "TopicKind",
    "TopicMatches",
    "Vocabulary",
    "VocabularyError",
    "append_corpus",
    "apply_part",
    "background_sample",
    "build_corpus",
    "check_topic_text",
    "clip",
    "corpus_arrays",
    "corpus_from_arrays",
    "coverage",
    "expand_bilingual",
    "explain",
    "extend_matches",
    "is_typo_of",
    "match_topic",
    "matches_from_arrays",
    "merge_matches",
    "named_within",
    "parse_vocabulary",
    "part_matches",
    "resolve",
    "score_paper",
    "segment_matches",
    "stored_mark",
    "suggest",
    "term_key",
    "update_corpus",
    "vocabulary_fingerprint",
    "with_more_near",
    "with_part",
]
