-- Append-only segments of the stored search index and topic corpus (an
-- LSM-style layout): a load that adds a page stores only the new part (its
-- papers, postings, matches and the ids it marks dead) as one segment,
-- written in one transaction, instead of rewriting every `search_index`
-- row. A reader takes the base (`search_index` rows) plus the segments of
-- that base in `seq` order; a full save (compaction) replaces the base and
-- drops the segments in the same transaction.
CREATE TABLE index_segments (
    scope          TEXT    NOT NULL,  -- 'index' or 'topics'
    seq            INTEGER NOT NULL,  -- 1, 2, ... in append order
    base_version   INTEGER NOT NULL,  -- corpus version of the base it extends
    corpus_version INTEGER NOT NULL,  -- version base + segments up to this one cover
    format         INTEGER NOT NULL,
    name           TEXT    NOT NULL,
    dtype          TEXT    NOT NULL,
    shape          TEXT    NOT NULL,  -- JSON list of ints
    data           BLOB    NOT NULL,
    PRIMARY KEY (scope, seq, name)
);
