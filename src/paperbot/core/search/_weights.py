"""The search scores' tuning constants, one name per meaning."""

from __future__ import annotations

# Stage-1 field weights: a title hit outweighs a summary hit. (Not the
# topic matcher's weights: those live in core.topics.)
SEARCH_TITLE_WEIGHT = 0.75
SEARCH_SUMMARY_WEIGHT = 0.25
# Share of a Latin term's stage-1 weight carried by the whole (stemmed) word;
# the rest is spread over its trigrams, so typos keep most of the score.
WORD_SHARE = 0.4
# Grams in more than this share of papers carry almost no information and
# have huge posting lists; they are skipped when a term has rarer grams.
COMMON_DF = 0.25
# A term's weight is its mean IDF, squashed below this IDF (a gram in some
# 5% of papers) so very common terms weigh little in both stages.
IDF_FULL = 3.0
# An English word's IDF is pulled toward the IDF it would have over English
# abstracts of this many words, from its general English frequency
# (`_general`): the corpus's English is mostly titles, too thin to show
# that `small` or `real` is an everyday word.
ABSTRACT_WORDS = 250
# A Chinese query word of general Zipf frequency at least `FRAME_ZIPF` (1 in
# 10,000 words: 以后, 其实, 是不是) that fewer summaries say than
# `FRAME_SHARE` x the share its general frequency predicts for a text of
# `SUMMARY_WORDS_ZH` words is the question's frame (`_general`) and counts
# as a generic word. The shipped summaries hold 130 characters on average,
# about 80 words; rarer words are as likely a topic's.
SUMMARY_WORDS_ZH = 80
FRAME_ZIPF = 5.0
FRAME_SHARE = 1.0
# Generic words (model, 方法) and question words kept in a query.
GENERIC_FACTOR = 0.2
# A lone Chinese character a query's cut leaves over (树 of 思维树) is kept
# when rare, at this share of its weight: one character is ambiguous (树 is
# also in 决策树, decision tree) where a word is not.
CHAR_FACTOR = 0.5
# A bound compound final of the query (`aware` after a hyphen, `_words.
# BOUND_FINALS`): it says how the first word's idea is used, not an idea.
BOUND_FACTOR = 0.3
MIN_TERM_WEIGHT = 0.02
# Stage-1 candidates that stage 2 re-ranks.
CANDIDATES = 100

# Stage 2: per-term match strengths (exact > run-together > fuzzy).
EXACT = 1.0
JOINED = 0.95
# `refined web` finds RefinedWeb as a word of its own, or, from this many
# letters, as a piece inside a longer word (shorter pairs meet by chance).
JOINED_PIECE_MIN = 6
SUBSTRING = 0.9
# A piece inside a longer word counts as SUBSTRING when it is at least this
# share of that word; a smaller piece counts SUBSTRING x its share.
PIECE_SHARE = 0.6
FUZZY = 0.85
PARTIAL_CJK = 0.85
# An alias (other language, acronym) counts at most this much of a direct
# match, in stage 1 and stage 2.
ALTERNATIVE = 0.6
# Queries of this many terms or more: aliases count less (measured: expanding
# long queries made them worse, short ones gained most).
LONG_QUERY_TERMS = 4
LONG_QUERY_ALTERNATIVE = 0.5
# A translation (the other language's term of the same bilingual concept)
# counts more than a topic's broader aliases: 零阶优化 in a summary says
# zeroth-order, where 优化器 only says "optimizers".
TRANSLATION = 0.75
LONG_QUERY_TRANSLATION = 0.65
PHRASE_PARTS = 0.95
# A term at least this heavy (squashed IDF: in under ~5% of papers) matched
# exactly in a summary counts this much: above a fuzzy title match.
RARE_WEIGHT = 3.0
RARE_SUMMARY_EXACT = 0.88
# A match counts this much in the title and in the summary: every stage-2
# scorer's factors, the plain ones' and their vectorised twins'.
TITLE_FACTOR = 1.0
SUMMARY_FACTOR = 0.7
# Final score: this share of the stage-1 score is blended into stage 2's.
BLEND_STAGE1 = 0.25
# When stage 2 matches no candidate at all, candidates holding at least this
# share of the query's weighted grams are ranked by it (scaled down: they
# are near matches, never as good as a matched term).
FALLBACK_MIN_STAGE1 = 0.3
FALLBACK_SHARE = 0.5
TITLE_PHRASE_BONUS = 0.1
# Stage 2's title length normalisation: BM25's usual constants, against a
# typical paper title's length (normalised characters; the shipped corpus's
# median is 79).
BM25_K1 = 1.2
BM25_B = 0.75
TITLE_PIVOT_CHARS = 80
ALL_TERMS_BONUS = 0.05
# Long queries (at least this many terms) fuse stage 2's order with a TF-IDF
# cosine's by reciprocal rank (`_fusion`): 1 / (K + rank), the cosine's
# share weighted; K = 60 is the usual constant.
FUSION_MIN_TERMS = 4
FUSION_K = 60
FUSION_WEIGHT = 0.3
