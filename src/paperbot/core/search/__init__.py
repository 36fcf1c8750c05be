"""Bilingual, typo-tolerant paper search: an n-gram index and a two-stage ranker.

Stage 1 (`_recall`) scores every paper at once from an inverted index held
as numpy arrays (`_build`, keys from `_grams`): CJK unigrams and bigrams,
Latin word tokens (lightly stemmed) and Latin character trigrams padded at
word boundaries, separately for titles and summaries. Each query term
contributes its IDF-weighted share of grams found, so a paper covering more
of the query scores higher, typos still share most trigrams, and a Chinese
phrase that is not verbatim in a summary still matches through its bigrams.
One `np.bincount` does the sum.

Stage 2 (`_rerank`, field matching in `_match`) re-ranks the best hundred
candidates term by term: exact word or phrase, a run-together/split form, a
rapidfuzz typo match, or bigram coverage for Chinese; titles count above
summaries and the stage-1 score is blended in (`_rank`) so re-ranking never
loses a paper stage 1 found clearly.

Everything here is pure: queries are parsed by `parse_query` (`_query`), the
service layer fetches papers and persists the arrays (`to_arrays` /
`from_arrays`, `_persist`). Import from this package, never from its
private modules.
"""

from __future__ import annotations

from paperbot.core.search._aliases import (
    AliasSpans,
    QueryTables,
    alias_spans,
    bilingual_table,
    concept_synonyms,
    concept_translations,
)
from paperbot.core.search._append import append_papers, update_papers
from paperbot.core.search._build import (
    build_field,
    build_index,
    build_index_columns,
    common_cjk_chars,
    sampled_cjk_doc_counts,
    title_acronyms,
)
from paperbot.core.search._build_arrays import iter_index_arrays
from paperbot.core.search._chunk_runs import ChunkRuns
from paperbot.core.search._common import (
    COUNT_ARRAYS,
    char_counts,
    common_from_counts,
    keeps_common,
    packed_char_counts,
    segment_char_counts,
    stored_common,
)
from paperbot.core.search._cut import COMMON_CHAR
from paperbot.core.search._dictionary import (
    dictionary_translation,
    english_translation,
    load_dictionary,
)
from paperbot.core.search._filters import MAX_YEAR, MIN_YEAR, canonical_venue
from paperbot.core.search._fusion import fuse_ranks, fused_order, query_cosines
from paperbot.core.search._general import (
    chinese_zipf,
    english_idf,
    general_idf,
    says_less_than_usual,
    zipf_frequency,
)
from paperbot.core.search._grams import (
    char_grams,
    chunk_word_keys,
    chunk_words,
    cjk_bigrams,
    joined_codes,
    term_grams,
    text_codes,
    word_grams,
    word_key,
)
from paperbot.core.search._index import EMPTY_RANKING, FieldIndex, Ranking, SearchIndex
from paperbot.core.search._match import (
    FieldSet,
    FieldText,
    NearWords,
    cjk_strengths,
    latin_near,
    may_be_misspelt,
    term_match,
)
from paperbot.core.search._persist import (
    INDEX_FORMAT,
    PackedTexts,
    dead_after,
    from_arrays,
    iter_arrays,
    pack_texts,
    segment_arrays,
    segment_columns,
    to_arrays,
)
from paperbot.core.search._query import (
    MAX_ALTERNATIVES,
    MAX_SYNONYMS,
    ParsedQuery,
    QueryProblem,
    Term,
    expand_terms,
    is_rare_char,
    parse_query,
)
from paperbot.core.search._rank import loaded_years, rank, rank_or_yearless, suggest_titles
from paperbot.core.search._recall import (
    TermScores,
    filter_mask,
    stage1_scores,
    term_scores,
    term_weight,
    top_candidates,
)
from paperbot.core.search._rerank import rerank_one, rerank_scores, title_length_norm
from paperbot.core.search._segment import corpus_word_counts, split_unknown_runs
from paperbot.core.search._weights import (
    ALTERNATIVE,
    BOUND_FACTOR,
    CANDIDATES,
    CHAR_FACTOR,
    FUSION_MIN_TERMS,
    FUSION_WEIGHT,
    GENERIC_FACTOR,
    LONG_QUERY_ALTERNATIVE,
    LONG_QUERY_TRANSLATION,
    TRANSLATION,
)
from paperbot.core.search._words import FUNCTION_WORDS, STOP_WORDS, is_common_word

__all__ = [
    "ALTERNATIVE",
    "BOUND_FACTOR",
    "CANDIDATES",
    "CHAR_FACTOR",
    "COMMON_CHAR",
    "COUNT_ARRAYS",
    "EMPTY_RANKING",
    "FUNCTION_WORDS",
    "FUSION_MIN_TERMS",
    "FUSION_WEIGHT",
    "GENERIC_FACTOR",
    "INDEX_FORMAT",
    "LONG_QUERY_ALTERNATIVE",
    "LONG_QUERY_TRANSLATION",
    "MAX_ALTERNATIVES",
    "MAX_SYNONYMS",
    "MAX_YEAR",
    "MIN_YEAR",
    "STOP_WORDS",
    "TRANSLATION",
    "AliasSpans",
    "ChunkRuns",
    "FieldIndex",
    "FieldSet",
    "FieldText",
    "NearWords",
    "PackedTexts",
    "ParsedQuery",
    "QueryProblem",
    "QueryTables",
    "Ranking",
    "SearchIndex",
    "Term",
    "TermScores",
    "alias_spans",
    "append_papers",
    "bilingual_table",
    "build_field",
    "build_index",
    "build_index_columns",
    "canonical_venue",
    "char_counts",
    "char_grams",
    "chinese_zipf",
    "chunk_word_keys",
    "chunk_words",
    "cjk_bigrams",
    "cjk_strengths",
    "common_cjk_chars",
    "common_from_counts",
    "concept_synonyms",
    "concept_translations",
    "corpus_word_counts",
    "dead_after",
    "dictionary_translation",
    "english_idf",
    "english_translation",
    "expand_terms",
    "filter_mask",
    "from_arrays",
    "fuse_ranks",
    "fused_order",
    "general_idf",
    "is_common_word",
    "is_rare_char",
    "iter_arrays",
    "iter_index_arrays",
    "joined_codes",
    "keeps_common",
    "latin_near",
    "load_dictionary",
    "loaded_years",
    "may_be_misspelt",
    "pack_texts",
    "packed_char_counts",
    "parse_query",
    "query_cosines",
    "rank",
    "rank_or_yearless",
    "rerank_one",
    "rerank_scores",
    "sampled_cjk_doc_counts",
    "says_less_than_usual",
    "segment_arrays",
    "segment_char_counts",
    "segment_columns",
    "split_unknown_runs",
    "stage1_scores",
    "stored_common",
    "suggest_titles",
    "term_grams",
    "term_match",
    "term_scores",
    "term_weight",
    "text_codes",
    "title_acronyms",
    "title_length_norm",
    "to_arrays",
    "top_candidates",
    "update_papers",
    "word_grams",
    "word_key",
    "zipf_frequency",
]
