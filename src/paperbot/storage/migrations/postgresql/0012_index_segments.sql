-- PostgreSQL twin of ../0012_index_segments.sql: segment arrays as BYTEA.
CREATE TABLE index_segments (
    scope          TEXT    NOT NULL,  -- 'index' or 'topics'
    seq            INTEGER NOT NULL,  -- 1, 2, ... in append order
    base_version   INTEGER NOT NULL,  -- corpus version of the base it extends
    corpus_version INTEGER NOT NULL,  -- version base + segments up to this one cover
    format         INTEGER NOT NULL,
    name           TEXT    NOT NULL,
    dtype          TEXT    NOT NULL,
    shape          TEXT    NOT NULL,  -- JSON list of ints
    data           BYTEA   NOT NULL,
    PRIMARY KEY (scope, seq, name)
);
